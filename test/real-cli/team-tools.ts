// The team tools wired into a real CLI: the adapter's own command line (as an attempt builds it)
// runs the real CLI against the scripted model, which calls the tools as a model would. The server
// is test/fixtures/mcp/team-tools-server.mjs, which serves `team mcp`'s tool names and records each
// call: this checks how each CLI starts the server, names its tools and lets them run unasked.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect } from 'vitest';
import { ROOT } from '../helpers/team.js';
import { getAdapter } from '../../workers/adapters/index.js';
import { TEAM_TOOL_NAMES } from '../../workers/adapters/team-tools.js';
import type { PermissionLevel } from '../../workers/types.js';
import type { CliHome, RealCli } from './clis.js';
import { taskContent, taskFile } from './model-server/scenario.js';
import { OK_KEY, type ModelServer } from './model-server/server.js';
import { findTool, leadMessage, SHARED_FILE, TEAM_TOOLS_MARK } from './model-server/team-tools.js';

const FIXTURE_SERVER = join(ROOT, 'test/fixtures/mcp/team-tools-server.mjs');
// Beyond claude's default wait for its MCP servers (5 s) and codex's grace.
const SLOW_START_MS = 6_000;
// One CLI run, its start included, on a busy machine.
const RUN_TIMEOUT_MS = 120_000;

// An exec prompt as config/prompts/team-exec.md words it, for task t1 of the team tools scenario.
function examplePrompt(projectDir: string, resultFile: string): string {
  return [
    '# teamline · team-exec · you are the executor (worker-1)',
    '',
    "The team's task:",
    '',
    `write one file ${TEAM_TOOLS_MARK}`,
    '',
    `## Your task: t1 — write ${taskFile('t1')}`,
    '',
    `Work in the project folder (${projectDir}). List the files you changed as artifacts.`,
    '',
    `Write this JSON to the file named by $TEAM_RESULT_FILE (${resultFile}); if you cannot write files, print it as the last fenced \`\`\`json block of your answer.`,
    '',
  ].join('\n');
}

export interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
}

// Runs `cli` once on task t1 in `projectDir` with the team tools at `permission`; resolves with
// the calls the tool server received and the CLI's exit.
export async function runWithTeamTools(cli: RealCli, home: CliHome, projectDir: string, permission: PermissionLevel): Promise<{ calls: ToolCall[]; exitCode: number | undefined; output: string; attemptDir: string }> {
  const attemptDir = join(projectDir, '.team/runs/tools/attempts/t1', `a-${permission}`);
  mkdirSync(attemptDir, { recursive: true });
  const resultFile = join(attemptDir, 'result.json');
  const promptFile = join(attemptDir, 'prompt.md');
  const prompt = examplePrompt(projectDir, resultFile);
  writeFileSync(promptFile, prompt);
  writeFileSync(join(attemptDir, 'mcp-calls.jsonl'), '');
  const adapter = getAdapter(cli, {})!;
  // At the run level the server is slow to start: the CLI must wait for it before its first turn.
  const slow = permission === 'run' ? ['--start-delay-ms', String(SLOW_START_MS)] : [];
  const teamServer = { command: process.execPath, args: [FIXTURE_SERVER, '--attempt-dir', attemptDir, ...slow] };
  // The adapter builds in `team`'s process, whose HOME is the worker's: here, the scratch home.
  const env = home.env(OK_KEY);
  const agent = { adapter: cli, env: { HOME: env.HOME! } };
  const command = adapter.build({ prompt, promptFile, resultFile, projectDir, agent, stage: 'team-exec', permission, teamServer });
  const result = await execa(command.file, command.args, {
    cwd: projectDir,
    // As the backends run a worker: PWD is its folder (opencode takes its project from PWD).
    env: { ...env, ...command.env, PWD: projectDir },
    inputFile: command.stdinFile,
    timeout: RUN_TIMEOUT_MS,
    reject: false,
    all: true,
  });
  const calls = readFileSync(join(attemptDir, 'mcp-calls.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as ToolCall).filter((call) => call.tool !== undefined);
  return { calls, exitCode: result.exitCode, output: result.all ?? '', attemptDir };
}

// The checks of one run: every team tool offered, the scenario's calls made in order, the file
// written when the level lets the worker edit.
export function expectTeamToolsUsed(server: ModelServer, cli: RealCli, projectDir: string, run: Awaited<ReturnType<typeof runWithTeamTools>>, level: PermissionLevel): void {
  const offered = server.calls.filter((call) => call.facts?.teamTools && call.facts.projectDir === projectDir).flatMap((call) => call.tools ?? []);
  for (const name of TEAM_TOOL_NAMES) expect(findTool(offered, name), `${cli} offers ${name}; offered: ${[...new Set(offered)].join(', ')}`).toBeDefined();
  expect(run.calls.map((call) => call.tool), run.output).toEqual(['team_tasks', 'team_reserve', 'team_message', 'team_message', 'team_progress', 'team_done']);
  expect(run.calls[1]!.args).toEqual({ files: [taskFile('t1'), SHARED_FILE] });
  expect(run.calls[2]!.args).toEqual({ to: 'lead', text: leadMessage('t1') });
  if (level !== 'read') expect(readFileSync(join(projectDir, taskFile('t1')), 'utf8')).toBe(taskContent(cli, 't1'));
  else expect(existsSync(join(projectDir, taskFile('t1')))).toBe(false);
}

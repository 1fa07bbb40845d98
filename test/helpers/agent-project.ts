// A temporary project for end-to-end runs of the built `team` CLI with real agent commands:
// its own config, the env of every call (PATH, TMUX_TMPDIR), runs in the background, the log read back.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { readRunFiles, type RunFiles } from '../../src/log/read.js';
import { runPaths } from '../../src/log/write.js';
import type { EventName, EventOf } from '../../src/log/schema.js';
import type { StatusJson } from './project.js';
import { CLI, ROOT, type TeamResult } from './team.js';

// The stub CLIs (claude, codex, gemini, opencode, aider) that play the real ones' output.
export const STUB_BIN = join(ROOT, 'test/fixtures/bin');
export const SCENARIOS = join(ROOT, 'test/fixtures/scenarios');

// The scenario file `agents-<name>.json` of test/fixtures/scenarios.
export function scenarioPath(name: string): string {
  return join(SCENARIOS, `agents-${name}.json`);
}

export interface RunningTeam {
  pid: number;
  result: Promise<TeamResult>;
}

export interface AgentProject {
  dir: string;
  /** Added to the environment of every `team` call of this project. */
  env: Record<string, string>;
  /** Writes .team/config.json. */
  writeConfig(config: Record<string, unknown>): void;
  /** Writes a file at a path relative to the project, making its folders. */
  write(relative: string, text: string): string;
  /** `team <args>` in the project, run to its end; `env` goes on top of the project's. */
  team(args: string[], env?: Record<string, string>): Promise<TeamResult>;
  /** `team <args>` started in the background. */
  start(args: string[], env?: Record<string, string>): RunningTeam;
  /** `team status --json`; throws unless it exits 0. */
  statusJson(): Promise<StatusJson>;
  /** The latest run's id (.team/runs/current). */
  runId(): string;
  /** Run ids under .team/runs. */
  runIds(): string[];
  /** Every file of a run as the reader sees it. */
  readRun(runId?: string): RunFiles;
}

const projects: string[] = [];
const running = new Set<ResultPromise>();

// A new empty project folder; removed by `removeAgentProjects`.
export function makeAgentProject(env: Record<string, string> = {}): AgentProject {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-agents-'));
  projects.push(dir);
  const write = (relative: string, text: string) => {
    const path = join(dir, relative);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  const start = (args: string[], extra: Record<string, string> = {}): RunningTeam => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before the tests`);
    // The current node by path, so that a PATH without node still runs the CLI.
    const child = execa(process.execPath, [CLI, ...args], {
      cwd: dir,
      env: { ...env, ...extra },
      reject: false,
      stdin: 'ignore',
      stripFinalNewline: false,
    });
    running.add(child);
    const result = child.then((r) => {
      running.delete(child);
      return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
    });
    return { pid: child.pid ?? -1, result };
  };
  const project: AgentProject = {
    dir,
    env,
    writeConfig: (config) => void write('.team/config.json', `${JSON.stringify(config, null, 2)}\n`),
    write,
    team: (args, extra) => start(args, extra).result,
    start,
    async statusJson() {
      const result = await project.team(['status', '--json']);
      if (result.exitCode !== 0) throw new Error(`status --json exited ${result.exitCode}: ${result.stderr}`);
      return JSON.parse(result.stdout) as StatusJson;
    },
    runId: () => readFileSync(join(dir, '.team/runs/current'), 'utf8').trim(),
    runIds: () => (existsSync(join(dir, '.team/runs')) ? readdirSync(join(dir, '.team/runs')).filter((n) => n !== 'current') : []),
    readRun: (runId = project.runId()) => readRunFiles(runPaths(dir, runId)),
  };
  return project;
}

// The events of one name, typed.
export function eventsOf<N extends EventName>(files: RunFiles, name: N): Array<EventOf<N> & { file: string }> {
  return files.events.filter((e) => e.event === name) as unknown as Array<EventOf<N> & { file: string }>;
}

// Ends `team` processes a failed test left running (SIGTERM: the CLI's own cancel path), then
// removes every project folder.
export async function removeAgentProjects(): Promise<void> {
  for (const child of [...running]) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await child;
    clearTimeout(timer);
  }
  running.clear();
  for (const dir of projects.splice(0)) rmSync(dir, { recursive: true, force: true });
}

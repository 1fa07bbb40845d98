// /team inside the real claude, gemini and opencode CLIs and $team in codex (after `team init`), and /cancel inside
// claude, against the scripted model server: the model gets the expanded command text, its shell
// calls run `team … --detach` and `team wait`, and the run completes; /cancel from another claude
// session ends a running team.
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, makeAgentProject, removeAgentProjects, type AgentProject } from '../helpers/agent-project.js';
import { allRoles, shellAgent } from '../helpers/sim-project.js';
import { CLI, ROOT } from '../helpers/team.js';
import { makeCliHome, type CliHome, type RealCli } from './clis.js';
import { ensureRealClis, REAL_CLI_BIN } from './install.mjs';
import { expectNoProcessLeft, markRun } from './leftovers.js';
import { OK_KEY, startModelServer, type ModelServer } from './model-server/server.js';

// A CLI session that starts a run and waits for it, on a busy machine.
const SESSION_TIMEOUT_MS = 240_000;
// Works until `release` exists in the project, then completes (the run /cancel stops).
const GATED = shellAgent('i=0; while [ ! -e "$TEAM_PROJECT_DIR/release" ]; do i=$((i+1)); [ $i -gt 2400 ] && exit 9; sleep 0.05; done; ' + `printf '%s' '{"status":"completed","summary":"released","evidence":"released"}' > "$TEAM_RESULT_FILE"`);

// How each CLI runs one slash command (codex: its skill) headless, allowed to run shell commands.
const SLASH: Record<'claude' | 'gemini' | 'opencode' | 'codex', (command: string, args: string) => string[]> = {
  claude: (command, args) => ['-p', `/${command}${args ? ` ${args}` : ''}`],
  gemini: (command, args) => ['-p', `/${command}${args ? ` ${args}` : ''}`, '--skip-trust', '--approval-mode', 'yolo'],
  opencode: (command, args) => ['run', '--command', command, ...(args ? [args] : [])],
  // Codex: the skill named in the message ($team). Its shell is a login shell by default, whose
  // profile resets PATH here; a plain shell that inherits the environment finds the test's `team`.
  codex: (command, args) => ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '-c', 'shell_environment_policy.inherit="all"', '-c', 'allow_login_shell=false', `$${command} ${args}`],
};
// opencode asks for no approval when its permissions allow edits and shell commands.
const EXTRA_ENV: Partial<Record<RealCli, Record<string, string>>> = { opencode: { OPENCODE_PERMISSION: JSON.stringify({ edit: 'allow', bash: 'allow' }) } };

const servers: Partial<Record<RealCli, { server: ModelServer; home: CliHome }>> = {};

beforeAll(async () => {
  ensureRealClis();
  for (const cli of ['claude', 'gemini', 'opencode', 'codex'] as const) {
    const server = await startModelServer(cli);
    servers[cli] = { server, home: makeCliHome(cli, server.url) };
  }
}, 600_000);

afterAll(async () => {
  await removeAgentProjects();
  for (const entry of Object.values(servers)) {
    await entry.server.close();
    entry.home.remove();
  }
});

// A project set up with `team init --<cli>`, `team` on PATH, every role on the sim (or `roles`).
async function initProject(cli: keyof typeof SLASH, roles: Record<string, string> = {}): Promise<{ project: AgentProject; slash(command: string, args?: string): Promise<{ exitCode?: number; stdout: string; stderr: string }>; marker: string; server: ModelServer }> {
  const { server, home } = servers[cli]!;
  const marker = markRun();
  const project = makeAgentProject({ ...home.env(OK_KEY), TEAMLINE_TEST_RUN: marker });
  const scenario = join(ROOT, 'test/fixtures/scenarios/e2e-one-task.json');
  project.writeConfig({ team: { fsync: false }, agents: { sim: { adapter: 'sim', scenario }, gated: GATED }, roles: allRoles('sim', roles) });
  const bin = join(project.dir, '.bin');
  mkdirSync(bin);
  project.write('.bin/team', `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'team'), 0o755);
  const init = await project.team(['init', `--${cli}`]);
  expect(init.exitCode, init.stderr).toBe(0);
  const env = { ...home.env(OK_KEY), ...EXTRA_ENV[cli], PATH: `${bin}:${REAL_CLI_BIN}:${process.env.PATH ?? ''}`, PWD: project.dir, TEAMLINE_TEST_RUN: marker };
  const slash = async (command: string, args = '') => {
    const result = await execa(join(REAL_CLI_BIN, cli), SLASH[cli](command, args), { cwd: project.dir, env, extendEnv: false, reject: false, stdin: 'ignore', timeout: SESSION_TIMEOUT_MS });
    return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
  };
  return { project, slash, marker, server };
}

const commandsOf = (server: ModelServer) => server.calls.flatMap((c) => (c.step?.kind === 'run' ? [c.step.command] : []));

describe('slash commands in the real CLIs', () => {
  it.each(['claude', 'gemini', 'opencode', 'codex'] as const)('%s: /team starts the run detached, waits for it with team wait, and the run completes', async (cli) => {
    const { project, slash, marker, server } = await initProject(cli);
    const commands = () => commandsOf(server);
    const result = await slash('team', '2:executor create hello.txt');
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(commands(), `${result.stdout}\n${result.stderr}`).toContain('team 2:executor "create hello.txt" --detach');
    expect(project.runIds(), JSON.stringify(server.calls.map((c) => c.outputs.at(-1)?.slice(0, 300)))).toHaveLength(1);
    const runId = project.runId();
    expect(commands()).toContain(`team wait --run ${runId} --timeout 100`);
    if (cli !== 'opencode') expect(result.stdout).toContain(`The team run ${runId} ended`);
    const files = project.readRun();
    expect(eventsOf(files, 'run_completed')).toHaveLength(1);
    const record = JSON.parse(readFileSync(join(project.dir, '.team/runs', runId, 'run.json'), 'utf8')) as { task: string; workers: number; session: string };
    expect(record).toMatchObject({ task: 'create hello.txt', workers: 2 });
    // Claude Code exports its session id to its Bash tool: the run records the session that started it.
    if (cli === 'claude') expect(record.session).toMatch(/^claude-code:[0-9a-f-]{36}$/);
    await expectNoProcessLeft(marker);
  }, SESSION_TIMEOUT_MS + 60_000);

  it('/cancel from a second claude session stops a running team and leaves nothing running', async () => {
    const { project, slash, marker, server } = await initProject('claude', { executor: 'gated' });
    const started = await project.team(['1:executor', 'wait for the release', '--detach'], { TEAMLINE_TEST_RUN: marker });
    expect(started.exitCode, started.stderr).toBe(0);
    const runId = project.runId();
    const result = await slash('cancel');
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(commandsOf(server)).toContain('team cancel');
    const files = project.readRun(runId);
    expect(eventsOf(files, 'run_cancelled')).toHaveLength(1);
    await expectNoProcessLeft(marker, eventsOf(files, 'attempt_spawned').map((e) => e.handle.pgid ?? 0).filter((g) => g > 0));
  }, SESSION_TIMEOUT_MS + 60_000);
});

// /team, /ralph and /cancel inside the real claude, gemini and opencode, and $team in codex, as a
// user has them: `team` on the PATH only through the README's install (the packed tarball in
// ~/.local), each CLI with its defaults and only what `team init` wrote (plus trusting the folder in
// gemini and the project in codex), projects that are git repositories with two workers. The
// scripted model follows the command texts through each CLI's own shell tool: it starts the run
// with --detach and runs the exact `next:` command each `team wait` printed until the run ends.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLeftovers } from '../helpers/tmux-leftovers.js';
import { systemPath } from '../helpers/installed-team.js';
import { CAN_UNSHARE } from '../helpers/namespace-run.js';
import { PID_NS } from '../../src/sys/proc.js';
import type { RealCli } from './clis.js';
import { ensureRealClis } from './install.mjs';
import { expectNoProcessLeft, liveWithMarker, markRun } from './leftovers.js';
import { FIRST_WAIT_S } from './model-server/slash.js';
import { startModelServer, type ModelServer } from './model-server/server.js';
import { makeTeamUser, SESSION_TIMEOUT_MS, until, type TeamUser } from './user-setup.js';

const CLIS: RealCli[] = ['claude', 'gemini', 'opencode', 'codex'];
// More `team wait` calls than Gemini's loop guard lets through identical (it ends a session at the 5th).
const WAITS = 11;
const marker = markRun();
let server: ModelServer;
let user: TeamUser;

beforeAll(async () => {
  ensureRealClis();
  server = await startModelServer('slash');
  user = await makeTeamUser(server.url, marker);
}, 600_000);

afterAll(async () => {
  await server?.close();
  user?.remove();
});

// The shell commands the model ran from call `from` on.
const commandsFrom = (from: number) => server.calls.slice(from).flatMap((c) => (c.step?.kind === 'run' ? [c.step.command] : []));
// The last shell output the CLI showed the model from call `from` on.
const lastOutputFrom = (from: number) => server.calls.slice(from).at(-1)?.outputs.at(-1) ?? '';
const said = (result: { stdout: string; stderr: string }) => `${result.stdout}\n${result.stderr}`;

// No process of the user's runs is left, once their orchestrators had a moment to exit after the
// run's last event.
async function expectNothingLeft(): Promise<void> {
  await until(() => liveWithMarker(marker).length === 0, 20_000);
  await expectNoProcessLeft(marker);
}

describe('slash commands in the real CLIs, as a user has them', () => {
  it.each(CLIS)('%s: /team runs a team to the end through more than ten team wait calls, each the next command the last one printed', async (cli) => {
    const project = await user.project(cli, { gated: true });
    const from = server.calls.length;
    const waits = () => commandsFrom(from).filter((command) => command.startsWith('team wait '));
    const session = project.slash('team', '2:executor create hello.txt');
    let ended = false;
    void session.finally(() => (ended = true));
    // The run outlasts the waits: its executor finishes only once the model has waited WAITS times.
    expect(await until(() => waits().length >= WAITS || ended)).toBe(true);
    writeFileSync(project.release, 'go\n');
    const result = await session;
    expect(result.exitCode, said(result)).toBe(0);
    expect(project.runIds(), lastOutputFrom(from)).toHaveLength(1);
    const runId = project.runId();
    expect(commandsFrom(from)[0]).toBe('team 2:executor "create hello.txt" --detach');
    expect(waits()[0]).toBe(`team wait --run ${runId} --timeout ${FIRST_WAIT_S}`);
    expect(waits().length).toBeGreaterThanOrEqual(WAITS);
    // No two waits alike, so that no loop guard takes them for a loop.
    expect(new Set(waits()).size).toBe(waits().length);
    const events = project.events(runId);
    expect(events.filter((e) => e.event === 'run_completed')).toHaveLength(1);
    expect(events.find((e) => e.event === 'run_started')).toMatchObject({ workers: 2, isolation: { mode: 'worktree' } });
    // The orchestrator ran outside any sandbox (codex: by the rule team init wrote): its workers are of this pid namespace.
    const spawned = events.flatMap((e) => (e.event === 'attempt_spawned' ? [(e as { handle: { pidNs?: string } }).handle.pidNs] : []));
    expect(new Set(spawned)).toEqual(new Set([PID_NS]));
    // What the shell tool showed the model at the end: where the work is, and the handoffs.
    const last = lastOutputFrom(from);
    expect(last).toContain(`COMPLETED`);
    expect(last).toContain(`team land --run ${runId}`);
    expect(last).toContain('Decided:');
    await expectNothingLeft();
  }, SESSION_TIMEOUT_MS + 60_000);

  it.each(CLIS)('%s: /ralph runs a ralph loop to the architect’s approval', async (cli) => {
    const project = await user.project(cli);
    const from = server.calls.length;
    const result = await project.slash('ralph', '2:executor add a greeting');
    expect(result.exitCode, said(result)).toBe(0);
    expect(commandsFrom(from)[0]).toBe('team ralph 2:executor "add a greeting" --detach');
    const runId = project.runId();
    const events = project.events(runId);
    expect(events.filter((e) => e.event === 'review_result').map((e) => (e as { verdict?: string }).verdict)).toEqual(['approve']);
    expect(events.filter((e) => e.event === 'run_completed')).toHaveLength(1);
    expect(lastOutputFrom(from)).toContain(`team land --run ${runId}`);
    await expectNothingLeft();
  }, SESSION_TIMEOUT_MS + 60_000);

  it.each(CLIS)('%s: /cancel stops a running team in tmux panes, and nothing of it is left running', async (cli) => {
    const project = await user.project(cli, { gated: true });
    const started = await project.team(['2:executor', 'wait for the release', '--detach', '--tmux']);
    expect(started.exitCode, said(started)).toBe(0);
    const runId = project.runId();
    const working = await until(() => project.events(runId).filter((e) => e.event === 'attempt_spawned' && ['t1', 't2'].includes((e as { task_id?: string }).task_id ?? '')).length === 2, 60_000);
    expect(working, said(await project.team(['status']))).toBe(true);
    const from = server.calls.length;
    const result = await project.slash('cancel');
    expect(result.exitCode, said(result)).toBe(0);
    expect(commandsFrom(from)).toEqual(['team cancel', 'team status']);
    const events = project.events(runId);
    expect(events.filter((e) => e.event === 'run_cancelled')).toHaveLength(1);
    expect(lastOutputFrom(from)).toContain('cancelled');
    await expectNothingLeft();
    expect(await findLeftovers(user.env(cli).TMUX_TMPDIR!, runId)).toEqual({ server: false, socket: false, processes: [] });
  }, SESSION_TIMEOUT_MS + 60_000);
});

describe('team as the README installs it', () => {
  const init = (cwd: string, args: string[], env: Record<string, string>) => execa(join(user.bin, 'team'), ['init', ...args], { cwd, env, extendEnv: false, reject: false, stdin: 'ignore' });

  it("team init warns when team is not on the PATH, and for codex when a login shell's PATH lacks it", async () => {
    const dir = mkdtempSync(join(user.home, 'init-'));
    const system = systemPath().join(delimiter);
    const found = await init(dir, ['--claude', '--codex'], { HOME: user.home, PATH: `${user.bin}${delimiter}${system}` });
    expect(found.exitCode, found.stderr).toBe(0);
    expect(found.stderr).not.toContain('team init: `team` is not on');
    const noPath = await init(dir, ['--claude', '--force'], { HOME: user.home, PATH: system });
    expect(noPath.stderr).toContain('team init: `team` is not on PATH, so claude cannot run it: install it with `npm install -g .` in a clone of teamline');
    // A profile that sets PATH anew, without ~/.local/bin, as many do: codex's login shell finds no team.
    const home = mkdtempSync(join(user.home, 'home-'));
    writeFileSync(join(home, '.profile'), `PATH=${system}\nexport PATH\n`);
    const lost = await init(dir, ['--codex', '--force'], { HOME: home, PATH: `${user.bin}${delimiter}${system}` });
    expect(lost.exitCode).toBe(0);
    expect(lost.stderr).toContain("team init: `team` is not on a login shell's PATH (`bash -lc 'command -v team'` finds nothing), where codex runs its commands");
  });

  it.skipIf(!CAN_UNSHARE)('team cancel from another pid namespace asks the orchestrator, which cancels the run itself, nothing left', async () => {
    const project = await user.project('claude', { gated: true });
    const started = await project.team(['2:executor', 'wait for the release', '--detach']);
    expect(started.exitCode, said(started)).toBe(0);
    const runId = project.runId();
    expect(await until(() => project.events(runId).filter((e) => e.event === 'attempt_spawned').length === 4, 60_000)).toBe(true);
    const env = { ...user.env('claude'), PWD: project.dir };
    const cancel = await execa('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child=SIGKILL', 'team', 'cancel', '--run', runId], { cwd: project.dir, env, extendEnv: false, reject: false, stdin: 'ignore' });
    expect(cancel.stderr).toContain(`the orchestrator runs in another process namespace (pid ${(/orchestrator pid (\d+)/.exec(started.stdout) ?? [])[1]} there); asked it to cancel run ${runId}`);
    expect(cancel.stderr).not.toContain('no live orchestrator');
    expect(cancel.exitCode, cancel.stderr).toBe(0);
    const events = project.events(runId);
    expect(events.filter((e) => e.event === 'cancel_requested').map((e) => (e as { by?: string }).by)).toEqual(['team cancel']);
    expect(events.filter((e) => e.event === 'run_cancelled')).toHaveLength(1);
    await expectNothingLeft();
  }, 120_000);
});

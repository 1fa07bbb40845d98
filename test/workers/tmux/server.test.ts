import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTmuxBackend } from '../../../workers/tmux/backend.js';
import { listPanes } from '../../../workers/tmux/panes.js';
import { attachCommand, ensureServer, killServer } from '../../../workers/tmux/server.js';
import { isRunning, makeRunId, makeTestRun, type TestRun } from './tmux-test-run.js';

let run: TestRun;

beforeEach(async () => {
  run = await makeTestRun();
});

afterEach(async () => {
  expect(await run.cleanup()).toEqual({ socketLeft: false });
});

// Runs tmux as a user would, with a given TMUX_TMPDIR and no outer TMUX.
function userTmux(socketDir: string, args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, TMUX_TMPDIR: socketDir };
  delete env.TMUX;
  return execa('tmux', args, { env, extendEnv: false, reject: false });
}

describe('tmux server', () => {
  it('starts one private server per run with remain-on-exit and a long history', async () => {
    // An outer tmux of the user (TMUX set) must not be joined.
    const inUserTmux = { ...run.options, env: { ...process.env, TMUX: '/tmp/tmux-0/default,1,0' } };
    await ensureServer(run.runId, inUserTmux);
    await ensureServer(run.runId, inUserTmux);
    expect(existsSync(run.socketPath)).toBe(true);
    const name = `team-${run.runId}`;
    const sessions = await userTmux(run.options.socketDir!, ['-L', name, 'list-sessions', '-F', '#{session_name}']);
    expect(sessions.stdout).toBe('team');
    const remain = await userTmux(run.options.socketDir!, ['-L', name, 'show-options', '-gwv', 'remain-on-exit']);
    expect(remain.stdout).toBe('on');
    const history = await userTmux(run.options.socketDir!, ['-L', name, 'show-options', '-gv', 'history-limit']);
    expect(history.stdout).toBe('50000');
  });

  it('leaves no pane, no server and no socket file after killServer', async () => {
    const spec = await run.makeSpec('t1', { file: 'sleep', args: ['60'] });
    const handle = await createTmuxBackend(run.options).launch(spec);
    expect(await listPanes(run.runId, run.options)).toHaveLength(2);
    await killServer(run.runId, run.options);
    expect(await listPanes(run.runId, run.options)).toEqual([]);
    const sessions = await userTmux(run.options.socketDir!, ['-L', `team-${run.runId}`, 'list-sessions']);
    expect(sessions.exitCode).not.toBe(0);
    expect(existsSync(run.socketPath)).toBe(false);
    if (handle.backend === 'tmux') expect(isRunning(handle.pid)).toBe(false);
  });

  it("leaves a user's own server on another -L name untouched", async () => {
    const userDir = await mkdtemp(join(tmpdir(), 'tmux-u-'));
    const userName = `user-${makeRunId()}`;
    try {
      await userTmux(userDir, ['-L', userName, 'new-session', '-d', '-s', 'mine', 'sleep', '60']);
      // The user's TMUX_TMPDIR is the run's too: the server names alone keep them apart.
      const shared = { ...run.options, socketDir: userDir };
      await ensureServer(run.runId, shared);
      await killServer(run.runId, shared);
      const mine = await userTmux(userDir, ['-L', userName, 'list-sessions', '-F', '#{session_name}']);
      expect(mine.stdout).toBe('mine');
    } finally {
      await userTmux(userDir, ['-L', userName, 'kill-server']);
      await rm(userDir, { recursive: true, force: true });
    }
  });

  it('gives the argv that attaches to the run server', () => {
    expect(attachCommand(run.runId, run.options)).toEqual([
      'env',
      `TMUX_TMPDIR=${run.options.socketDir}`,
      'tmux',
      '-L',
      `team-${run.runId}`,
      'attach-session',
      '-t',
      'team',
    ]);
  });
});

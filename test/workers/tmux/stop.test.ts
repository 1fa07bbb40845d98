import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listGroupMembers, waitUntil } from '../../../src/sys/proc.js';
import { createTmuxBackend } from '../../../workers/tmux/backend.js';
import { isRunning, makeTestRun, toNodeCommand, type TestRun } from './tmux-test-run.js';

let run: TestRun;

beforeEach(async () => {
  run = await makeTestRun();
});

afterEach(async () => {
  expect(await run.cleanup()).toEqual({ socketLeft: false });
});

describe('tmux stop', () => {
  it('kills an agent that ignores SIGINT and SIGTERM, and its children, after the grace', async () => {
    const backend = createTmuxBackend(run.options);
    const spec = await run.makeSpec('t1', toNodeCommand('tmux-stubborn.js'));
    const pidsFile = join(spec.attemptDir, 'pids.json');
    const stubborn = { ...spec, command: { ...spec.command, env: { PIDS_FILE: pidsFile } } };
    const handle = await backend.launch(stubborn);
    if (handle.backend !== 'tmux') throw new Error('not a tmux handle');
    expect(await waitUntil(() => existsSync(pidsFile), 10_000)).toBe(true);
    const pids = JSON.parse(await readFile(pidsFile, 'utf8')) as { agent: number; child: number };
    expect(listGroupMembers(handle.pgid)).toEqual(expect.arrayContaining([handle.pid, pids.agent, pids.child]));

    const waiting = backend.wait(handle, stubborn);
    const startedAt = Date.now();
    await backend.stop(handle, { graceMs: 500 });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(500);
    expect(listGroupMembers(handle.pgid)).toEqual([]);
    expect(isRunning(pids.child)).toBe(false);
    expect(existsSync(join(spec.attemptDir, 'shutdown'))).toBe(true);
    expect(await backend.isAlive(handle)).toBe(false);
    expect(await waiting).toMatchObject({ exitCode: null, signal: 'SIGKILL', stopped: true });
    expect(await readFile(join(spec.attemptDir, 'output.log'), 'utf8')).toContain('ignoring SIGINT');
  });

  it('returns at once for an agent that has already ended', async () => {
    const backend = createTmuxBackend(run.options);
    const spec = await run.makeSpec('t1', toNodeCommand('tmux-exit.js', ['0']));
    const handle = await backend.launch(spec);
    await backend.wait(handle, spec);
    await backend.stop(handle, { graceMs: 10_000 });
    expect(existsSync(join(spec.attemptDir, 'shutdown'))).toBe(false);
  });

  it('records SIGINT for an agent that ends on C-c within the grace', async () => {
    const backend = createTmuxBackend(run.options);
    const spec = await run.makeSpec('t1', { file: 'sleep', args: ['60'] });
    const handle = await backend.launch(spec);
    await backend.stop(handle, { graceMs: 10_000 });
    expect(await backend.wait(handle, spec)).toMatchObject({ exitCode: null, signal: 'SIGINT', stopped: true });
  });
});

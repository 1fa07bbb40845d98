// A worker's pid may go to another process while a stop escalates (the worker ended, the pid was
// handed out again): the stop looks at the recorded pid and start time again before the SIGTERM
// and before the delayed SIGKILL, and leaves a process that is no longer the recorded one alone.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { stopGroup } from '../../workers/process.js';
import { BOOT_ID, readPidStart, waitUntil } from '../../src/sys/proc.js';
import { createTmuxBackend } from '../../workers/tmux/backend.js';
import type { WorkerHandle } from '../../workers/types.js';
import { isRunning } from '../helpers/proc-groups.js';
import { makeTestRun, toNodeCommand, type TestRun } from './tmux/tmux-test-run.js';
import { ROOT } from '../helpers/team.js';

const NOTE_SIGNALS = join(ROOT, 'test/fixtures/agents/note-signals.js');
// Short enough for a unit test; the stop escalates right after it. The fixture must note a signal
// within it (the recycled pid is simulated from that note): 300 ms was not always enough at load 9.
const GRACE_MS = 1_000;

const started: ResultPromise[] = [];
const folders: string[] = [];
let run: TestRun | undefined;

afterEach(async () => {
  for (const child of started.splice(0)) {
    // The group we started; the control test killed it already.
    if (!child.pid || isRunning(child.pid)) process.kill(-child.pid!, 'SIGKILL');
    await child;
  }
  if (run) expect(await run.cleanup()).toEqual({ socketLeft: false });
  run = undefined;
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const notesIn = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []);
// The signals the fixture got, in order, once it is ready; undefined before.
const signalsIn = (file: string) => (notesIn(file)[0]?.startsWith('ready ') ? notesIn(file).slice(1) : undefined);
// The fixture's own pid, from its `ready` line.
const agentPid = (file: string) => Number(notesIn(file)[0]!.split(' ')[1]);

// The recorded handle, whose start time stops matching the live process once `after` was noted:
// from then on the pid reads as another process's, as when it was handed out again.
function recycledAfter<H extends WorkerHandle>(handle: H, notes: string, after: string): H {
  const start = handle.pidStart;
  return Object.defineProperty({ ...handle }, 'pidStart', { get: () => (signalsIn(notes)?.includes(after) ? start - 1 : start), enumerable: true });
}

// A process we start in a group of its own that ignores SIGINT and SIGTERM, noting them in `notes`.
async function startStubborn(): Promise<{ handle: WorkerHandle; notes: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-recheck-'));
  folders.push(dir);
  const notes = join(dir, 'notes');
  const child = execa(process.execPath, [NOTE_SIGNALS, notes], { detached: true, reject: false, stdin: 'ignore' });
  started.push(child);
  expect(await waitUntil(() => signalsIn(notes) !== undefined, 30_000)).toBe(true);
  const pid = child.pid!;
  return { handle: { backend: 'process', pid, pidStart: readPidStart(pid)!, pgid: pid, ...(BOOT_ID ? { bootId: BOOT_ID } : {}) }, notes };
}

describe('workers/process stopGroup (ownership looked at again while escalating)', () => {
  it('sends no SIGTERM to a group whose leader stopped being the recorded process during the grace', async () => {
    const { handle, notes } = await startStubborn();
    await stopGroup(recycledAfter(handle, notes, 'SIGINT'), { graceMs: GRACE_MS }, () => {});
    expect(signalsIn(notes)).toEqual(['SIGINT']);
    expect(isRunning(handle.pid)).toBe(true);
  });

  it('sends no delayed SIGKILL to a group whose leader stopped being the recorded process after the SIGTERM', async () => {
    const { handle, notes } = await startStubborn();
    await stopGroup(recycledAfter(handle, notes, 'SIGTERM'), { graceMs: GRACE_MS }, () => {});
    expect(signalsIn(notes)).toEqual(['SIGINT', 'SIGTERM']);
    expect(isRunning(handle.pid)).toBe(true);
  });

  it('kills the recorded group that ignores SIGINT and SIGTERM (the control for the tests above)', async () => {
    const { handle, notes } = await startStubborn();
    await stopGroup(handle, { graceMs: GRACE_MS }, () => {});
    expect(signalsIn(notes)).toEqual(['SIGINT', 'SIGTERM']);
    expect(isRunning(handle.pid)).toBe(false);
  });
});

describe('workers/tmux stop (ownership looked at again while escalating)', () => {
  it('sends no delayed SIGKILL to a pane group whose leader stopped being the recorded process after the SIGTERM', async () => {
    run = await makeTestRun();
    const notes = join(run.root, 'notes');
    const backend = createTmuxBackend(run.options);
    const handle = await backend.launch(await run.makeSpec('t1', toNodeCommand('note-signals.js', [notes])));
    expect(await waitUntil(() => signalsIn(notes) !== undefined, 30_000)).toBe(true);

    await backend.stop(recycledAfter(handle, notes, 'SIGTERM'), { graceMs: GRACE_MS });

    expect(signalsIn(notes)).toEqual(['SIGINT', 'SIGTERM']);
    expect(isRunning(agentPid(notes))).toBe(true);
  });
});

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Every fsync, by what it synced (a file or a folder), from either the thread pool or the event loop;
// the fsync of a file whose name holds `failFor` fails as a full disk would.
const synced: Array<'file' | 'dir'> = [];
let failFor: string | undefined;
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const kind = (fd: number) => (fs.fstatSync(fd).isDirectory() ? 'dir' : 'file');
  const fsyncSync = (fd: number) => {
    synced.push(kind(fd));
    fs.fsyncSync(fd);
  };
  const fsync = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
    synced.push(kind(fd));
    if (failFor !== undefined && fs.readlinkSync(`/proc/self/fd/${fd}`).includes(failFor)) {
      const error: NodeJS.ErrnoException = Object.assign(new Error('ENOSPC: no space left on device, fsync'), { code: 'ENOSPC' });
      return setImmediate(() => done(error));
    }
    fs.fsync(fd, done);
  };
  return { ...fs, default: { ...fs, fsyncSync, fsync }, fsyncSync, fsync };
});

const { createRun, appendEvent, runPaths } = await import('../../src/log/write.js');
const { EventGroup } = await import('../../src/log/event-group.js');
const { RUN_FIELDS } = await import('../helpers/runs.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'teamline-group-'));
  synced.length = 0;
  failFor = undefined;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function makeRun() {
  const { run_id } = createRun(dir, RUN_FIELDS, { fsync: false });
  return { runId: run_id, paths: runPaths(dir, run_id) };
}

const retry = (task: string) => ({ event: 'task_retry' as const, task_id: task, attempt: 2, reason: 'flaky' });
const inLog = (eventsDir: string) => readdirSync(eventsDir).filter((n) => !n.startsWith('.')).sort();
const staged = (eventsDir: string) => readdirSync(eventsDir).filter((n) => n.startsWith('.tmp-'));
const tasksIn = (eventsDir: string) => inLog(eventsDir).map((n) => JSON.parse(readFileSync(join(eventsDir, n), 'utf8')).task_id);

describe('checkpoint/event-group', () => {
  it('keeps the events of a step out of the log until flush, then puts them in, in order, with one folder fsync', async () => {
    const { runId, paths } = makeRun();
    const group = new EventGroup(paths, runId, { fsync: true });
    for (const task of ['a', 'b', 'c']) group.add(retry(task));
    expect(inLog(paths.eventsDir)).toEqual([]);
    expect(group.pending).toBe(true);
    const flushed = group.flush();
    expect(group.pending).toBe(false);
    await flushed;
    expect(tasksIn(paths.eventsDir)).toEqual(['a', 'b', 'c']);
    expect(staged(paths.eventsDir)).toEqual([]);
    expect(synced).toEqual(['file', 'file', 'file', 'dir']);
  });

  it('syncs nothing on a flush with nothing added since the last one, and that flush waits for the last', async () => {
    const { runId, paths } = makeRun();
    const group = new EventGroup(paths, runId, { fsync: true });
    group.add(retry('a'));
    const first = group.flush();
    const second = group.flush();
    await second;
    expect(tasksIn(paths.eventsDir)).toEqual(['a']);
    await first;
    expect(synced).toEqual(['file', 'dir']);
  });

  it('puts a later flush\'s events in the log only after an earlier one\'s, and none of either when the earlier fails', async () => {
    const { runId, paths } = makeRun();
    const group = new EventGroup(paths, runId, { fsync: true });
    failFor = '-task_retry-a-';
    group.add(retry('a'));
    const first = group.flush();
    group.add(retry('b'));
    const second = group.flush();
    await expect(first).rejects.toThrow(/ENOSPC/);
    await expect(second).rejects.toThrow(/ENOSPC/);
    // A prefix of the log, never a hole: b is not in without a.
    expect(inLog(paths.eventsDir)).toEqual([]);
    expect(staged(paths.eventsDir)).toHaveLength(2);
    // b's write goes on after the commits failed: its fsync is waited for here, so that it is not
    // counted in the next test's.
    await vi.waitFor(() => expect(synced).toEqual(['file', 'file']));
  });

  it('renames with fsync off too, syncing nothing', async () => {
    const { runId, paths } = makeRun();
    const group = new EventGroup(paths, runId, { fsync: false });
    group.add(retry('a'));
    await group.flush();
    expect(tasksIn(paths.eventsDir)).toEqual(['a']);
    expect(synced).toEqual([]);
  });

  it('lets the flushes asked for during a commit share the next one, which takes every event written by then', async () => {
    const { runId, paths } = makeRun();
    const group = new EventGroup(paths, runId, { fsync: true });
    group.add(retry('a'));
    const first = group.flush();
    group.add(retry('b'));
    const second = group.flush();
    group.add(retry('c'));
    const third = group.flush();
    expect(third).toBe(second);
    await third;
    expect(tasksIn(paths.eventsDir)).toEqual(['a', 'b', 'c']);
    await first;
    expect(synced.filter((s) => s === 'dir')).toHaveLength(2);
  });

  it('keeps a plain append at two fsyncs, its file and its folder', () => {
    const { runId, paths } = makeRun();
    appendEvent(paths, runId, retry('a'), { fsync: true });
    expect(synced).toEqual(['file', 'dir']);
  });
});

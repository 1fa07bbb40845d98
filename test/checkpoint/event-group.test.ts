import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Every fsync, by what it synced: a file or a folder.
const synced: Array<'file' | 'dir'> = [];
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const fsyncSync = (fd: number) => {
    synced.push(fs.fstatSync(fd).isDirectory() ? 'dir' : 'file');
    fs.fsyncSync(fd);
  };
  return { ...fs, default: { ...fs, fsyncSync }, fsyncSync };
});

const { appendEvent, createRun, EventGroup, runPaths } = await import('../../src/checkpoint/store.js');
const { RUN_FIELDS } = await import('../helpers/runs.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'teamline-group-'));
  synced.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function makeRun() {
  const { run_id } = createRun(dir, RUN_FIELDS, { fsync: false });
  return { runId: run_id, paths: runPaths(dir, run_id) };
}

const retry = (task: string) => ({ event: 'task_retry' as const, task_id: task, attempt: 2, reason: 'flaky' });

describe('checkpoint/store EventGroup', () => {
  it('writes the events of one step as files at once, in order, and syncs their folder once on flush', () => {
    const { runId, paths } = makeRun();
    const group = new EventGroup(paths, runId, { fsync: true });
    for (const task of ['a', 'b', 'c']) group.add(retry(task));
    const names = readdirSync(paths.eventsDir).sort();
    expect(names.map((n) => JSON.parse(readFileSync(join(paths.eventsDir, n), 'utf8')).task_id)).toEqual(['a', 'b', 'c']);
    expect(synced).toEqual(['file', 'file', 'file']);
    expect(group.pending).toBe(true);
    group.flush();
    expect(synced).toEqual(['file', 'file', 'file', 'dir']);
    expect(group.pending).toBe(false);
  });

  it('syncs nothing on a flush with nothing added since the last one', () => {
    const { runId, paths } = makeRun();
    const group = new EventGroup(paths, runId, { fsync: true });
    group.add(retry('a'));
    group.flush();
    group.flush();
    expect(synced).toEqual(['file', 'dir']);
  });

  it('makes an event appended outside a step durable at once, with the step events before it', () => {
    const { runId, paths } = makeRun();
    const group = new EventGroup(paths, runId, { fsync: true });
    group.add(retry('a'));
    group.append(retry('b'));
    expect(synced).toEqual(['file', 'file', 'dir']);
    expect(group.pending).toBe(false);
  });

  it('syncs nothing with fsync off', () => {
    const { runId, paths } = makeRun();
    const group = new EventGroup(paths, runId, { fsync: false });
    group.add(retry('a'));
    group.flush();
    expect(synced).toEqual([]);
  });

  it('keeps a plain append at two fsyncs, its file and its folder', () => {
    const { runId, paths } = makeRun();
    appendEvent(paths, runId, retry('a'), { fsync: true });
    expect(synced).toEqual(['file', 'dir']);
  });
});

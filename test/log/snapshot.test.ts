import { readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Event files read, by name: shows which events a view was made from.
const eventReads: string[] = [];
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const openSync = ((file: unknown, ...rest: unknown[]) => {
    if (typeof file === 'string' && file.includes('/events/')) eventReads.push(file.slice(file.lastIndexOf('/') + 1));
    return (fs.openSync as (...args: unknown[]) => unknown)(file, ...rest);
  }) as typeof fs.openSync;
  return { ...fs, default: { ...fs, openSync }, openSync };
});

const { appendEvent } = await import('../../src/log/write.js');
const { readRunFiles } = await import('../../src/log/read.js');
const { foldRun } = await import('../../src/log/fold/fold.js');
const { SNAPSHOT_FILE, SNAPSHOT_VERSION, readViewSnapshot } = await import('../../src/log/snapshot.js');
const { loadRunView, saveViewSnapshot } = await import('../../src/log/read-view.js');
const { makeRun, removeRuns, started, finished } = await import('../helpers/runs.js');
const { writeRawEvent } = await import('../helpers/events.js');

type Run = ReturnType<typeof makeRun>;
let run: Run;

const append = (event: Record<string, unknown>) => appendEvent(run.paths, run.runId, event as never, { fsync: false });
const fullFold = () => foldRun(readRunFiles(run.paths), run.dir);
const snapshotFile = () => join(run.paths.runDir, SNAPSHOT_FILE);

// Rewrites the snapshot's body (still signed, so that only its content can give it away).
function resign(change: (body: Record<string, unknown>) => void): void {
  const outer = JSON.parse(readFileSync(snapshotFile(), 'utf8')) as { body: string };
  const body = JSON.parse(outer.body) as Record<string, unknown>;
  change(body);
  const text = JSON.stringify(body);
  writeFileSync(snapshotFile(), JSON.stringify({ sha256: createHash('sha256').update(text).digest('hex'), body: text }));
}

// A snapshot whose fold claims the run completed: wherever it is trusted, status says so.
const claimCompleted = (body: Record<string, unknown>) => Object.assign(body.state as object, { status: 'completed', outcome: 'from the snapshot' });

beforeEach(() => {
  run = makeRun();
  append(started('t1'));
  append(finished('t1', 1, 'completed'));
  append(started('t2'));
  writeRawEvent(run.paths.eventsDir, '20261028T131016577943Z-task_finished-t9-a1-zzzzzz.json', '{"event": "task_fin');
  saveViewSnapshot(run.paths, run.dir);
  append(finished('t2', 1, 'failed'));
  append(started('t2', 2));
  eventReads.length = 0;
});

afterEach(removeRuns);

describe('runtime/view with a snapshot', () => {
  it('reads only the events after the snapshot and makes the same view as folding every event', () => {
    const view = loadRunView(run.paths, run.dir);
    expect(eventReads).toHaveLength(2);
    expect(view).toEqual(fullFold());
    expect(view.problems.map((p) => p.file)).toEqual(['events/20261028T131016577943Z-task_finished-t9-a1-zzzzzz.json']);
    expect(view.eventCount).toBe(5);
  });

  it('ignores a torn snapshot and folds every event', () => {
    writeFileSync(snapshotFile(), readFileSync(snapshotFile(), 'utf8').slice(0, 40));
    expect(loadRunView(run.paths, run.dir)).toEqual(fullFold());
  });

  it('ignores a snapshot of another version, whatever it says', () => {
    resign((body) => {
      body.version = SNAPSHOT_VERSION + 1;
      claimCompleted(body);
    });
    const view = loadRunView(run.paths, run.dir);
    expect(view.status).toBe('running');
    expect(view).toEqual(fullFold());
  });

  it('never trusts a snapshot over the events: one added or removed among those it holds makes it stale', () => {
    resign(claimCompleted);
    expect(loadRunView(run.paths, run.dir).status).toBe('completed');
    // An event file that sorts among the snapshot's own (another writer, a copied file).
    writeRawEvent(run.paths.eventsDir, '20261028T131016577942Z-task_retry-t1-a2-aaaaaa.json', JSON.stringify({ event: 'task_retry', at: 'x', run_id: run.runId, task_id: 't1', attempt: 2, reason: 'by hand' }));
    expect(loadRunView(run.paths, run.dir).status).toBe('running');
    expect(loadRunView(run.paths, run.dir)).toEqual(fullFold());
    unlinkSync(join(run.paths.eventsDir, '20261028T131016577942Z-task_retry-t1-a2-aaaaaa.json'));
    const first = readRunFiles(run.paths).events[0]!.file;
    unlinkSync(join(run.paths.eventsDir, first));
    expect(loadRunView(run.paths, run.dir)).toEqual(fullFold());
  });

  it('is rebuilt from the events when it no longer holds, and then holds every event', () => {
    rmSync(snapshotFile());
    const view = saveViewSnapshot(run.paths, run.dir);
    expect(view).toEqual(fullFold());
    const names = readRunFiles(run.paths).eventNames!;
    expect(readViewSnapshot(run.paths, names)?.through).toBe(names.at(-1));
    const expected = fullFold();
    eventReads.length = 0;
    expect(loadRunView(run.paths, run.dir)).toEqual(expected);
    expect(eventReads).toEqual([]);
  });
});

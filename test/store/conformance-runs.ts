// The store conformance suite, continued: what the commands read of a store besides one run's log
// (its runs, the run a command means, the log's length, the view) and the writer lock, crash included.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foldRun } from '../../src/log/fold/fold.js';
import { LockedError, UsageError } from '../../src/sys/errors.js';
import { foldInput } from '../../src/store/types.js';
import type { StoreFixture } from './conformance.js';
import { appendSteps, entered, finished, RUN_FIELDS } from './records.js';

// Registers the behaviours; `fixture` gives the test's fresh store.
export function runsConformance(fixture: () => StoreFixture): void {
  let project: string;
  beforeEach(() => {
    project = mkdtempSync(join(tmpdir(), 'teamline-store-project-'));
  });
  afterEach(() => rmSync(project, { recursive: true, force: true }));

  describe('runs', () => {
    it('lists every run oldest first, and holds those alone', async () => {
      const { store } = fixture();
      expect(await store.runIds()).toEqual([]);
      await store.createRun(RUN_FIELDS, 'run-a');
      await store.createRun(RUN_FIELDS, 'run-b');
      expect(await store.runIds()).toEqual(['run-a', 'run-b']);
      expect([await store.hasRun('run-b'), await store.hasRun('run-c')]).toEqual([true, false]);
    });

    it('picks the named run, else the latest; a run it does not hold, or none at all, is bad input', async () => {
      const { store } = fixture();
      await expect(store.pickRun()).rejects.toThrow(UsageError);
      await expect(store.pickRun()).rejects.toThrow(`no run in ${store.where}: `);
      await store.createRun(RUN_FIELDS, 'run-a');
      await store.createRun(RUN_FIELDS, 'run-b');
      expect([await store.pickRun(), await store.pickRun('run-a')]).toEqual(['run-b', 'run-a']);
      await expect(store.pickRun('run-c')).rejects.toThrow(/^--run: no run run-c in /);
    });

    it('counts the events of a run as its steps are appended', async () => {
      const { store } = fixture();
      const run = await store.createRun(RUN_FIELDS);
      expect(await store.eventCount(run.run_id)).toBe(0);
      await appendSteps(store, run.run_id, [[entered('team-plan'), finished('plan', 1)], [entered('team-exec'), finished('t1', 1), entered('team-verify')]]);
      expect(await store.eventCount(run.run_id)).toBe(5);
    });

    it('gives the view the fold makes of what it reads, and the events it read for it', async () => {
      const { store } = fixture();
      const run = await store.createRun(RUN_FIELDS);
      await appendSteps(store, run.run_id, [[entered('team-plan'), finished('plan', 1)], [entered('team-exec'), finished('t1', 1, 'failed')]]);
      const read = await store.read(run.run_id);
      const { view, events } = await store.view(run.run_id, project);
      expect(view).toEqual(foldRun(foldInput(read), project));
      expect(view.eventCount).toBe(4);
      if (events) expect(events).toEqual(read.events);
    });
  });

  describe('the writer lock', () => {
    it('refuses a second writer while the first holds the run, and lets it in once released', async () => {
      const { store } = fixture();
      const run = await store.createRun(RUN_FIELDS);
      const first = await store.lockWriter(run.run_id, 'teamline test writer A');
      await expect(store.lockWriter(run.run_id, 'teamline test writer B')).rejects.toThrow(LockedError);
      expect(await store.hasWriter(run.run_id)).toBe(true);
      await first.release();
      expect(await store.hasWriter(run.run_id)).toBe(false);
      const second = await store.lockWriter(run.run_id, 'teamline test writer B');
      await second.release();
    });

    it('says a run is driven while a writer holds its lock, and not once that writer is killed with kill -9', async () => {
      const fx = fixture();
      const run = await fx.store.createRun(RUN_FIELDS);
      expect(await fx.store.hasWriter(run.run_id)).toBe(false);
      const writer = await fx.startWriter(run.run_id);
      try {
        expect(await fx.store.hasWriter(run.run_id)).toBe(true);
      } finally {
        await writer.crash();
      }
      expect(await fx.store.hasWriter(run.run_id)).toBe(false);
    });
  });
}

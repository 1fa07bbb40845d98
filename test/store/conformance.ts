// The store conformance suite: every behaviour of docs/scale-out.md's RunStore, run against each
// store by its own test file (file-store.test.ts, pg-store.test.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/sys/errors.js';
import { TerminalConflictError } from '../../src/store/terminal.js';
import type { RunStore } from '../../src/store/types.js';
import { eventFileName } from '../helpers/events.js';
import { approvalConformance } from './conformance-replay.js';
import { runsConformance } from './conformance-runs.js';
import { inboxConformance } from './conformance-inbox.js';
import type { WriterProcess } from './writer-process.js';
import { appendSteps, entered, finished, RUN_FIELDS, withoutFile } from './records.js';

// A fresh, empty store, with ways around it to put what a crash, a bug or a person could leave.
export interface StoreFixture {
  store: RunStore;
  /** Writes a record straight into the run's events or approvals, bypassing the store. */
  writeRaw(runId: string, kind: 'events' | 'approvals', name: string, body: string): Promise<void>;
  /** What the store does with a second terminal record written around it: refuse it, or report it. */
  secondTerminal: 'refused' | 'reported';
  /** Starts a process that holds the run's writer lock until it is killed. */
  startWriter(runId: string): Promise<WriterProcess>;
  cleanup(): Promise<void>;
}

// Registers the suite for one store.
export function storeConformance(open: () => Promise<StoreFixture>): void {
  let fx: StoreFixture;
  beforeEach(async () => {
    fx = await open();
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  describe('the log', () => {
    it('reads back every step in the order appended, each record named once', async () => {
      const run = await fx.store.createRun(RUN_FIELDS);
      const steps = [[entered('team-plan')], Array.from({ length: 30 }, (_, i) => entered(`s${i}`, i)), [finished('t1', 1), entered('team-verify')]];
      const written = await appendSteps(fx.store, run.run_id, steps);
      const read = await fx.store.read(run.run_id);
      expect(read.events.map(withoutFile)).toEqual(written);
      expect(read.events.map((e) => (e.event === 'stage_entered' ? e.stage : e.event))).toEqual(['team-plan', ...steps[1]!.map((_, i) => `s${i}`), 'task_finished', 'team-verify']);
      expect(new Set(read.events.map((e) => e.file)).size).toBe(33);
      expect(written.every((e) => e.run_id === run.run_id && typeof e.at === 'string')).toBe(true);
      expect(read.run).toEqual(run);
      expect(read.malformed).toEqual([]);
    });

    it('keeps what was read unchanged as later steps are appended', async () => {
      const run = await fx.store.createRun(RUN_FIELDS);
      await fx.store.append(run.run_id, [entered('team-plan'), finished('plan', 1)]);
      const before = (await fx.store.read(run.run_id)).events;
      await fx.store.append(run.run_id, [entered('team-exec')]);
      const after = (await fx.store.read(run.run_id)).events;
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after).toHaveLength(3);
    });

    it('creates a run once: a second run with its id is refused and the first is kept', async () => {
      const run = await fx.store.createRun(RUN_FIELDS, 'run-once');
      await expect(fx.store.createRun({ ...RUN_FIELDS, task: 'other' }, 'run-once')).rejects.toThrow(new UsageError('run id run-once is in use: a run is created once'));
      expect((await fx.store.read('run-once')).run).toEqual(run);
    });

    it('refuses a second terminal record of an attempt, and writes nothing of that step', async () => {
      const run = await fx.store.createRun(RUN_FIELDS, 'run-term');
      await fx.store.append(run.run_id, [finished('t1', 1)]);
      const again = fx.store.append(run.run_id, [entered('team-verify'), finished('t1', 1, 'failed')]);
      await expect(again).rejects.toThrow(TerminalConflictError);
      await expect(again).rejects.toThrow('run run-term: task t1 attempt 1 already has its terminal record (task_finished); a second one is refused and nothing of this step was written');
      await expect(fx.store.append(run.run_id, [finished('t2', 1), finished('t2', 1)])).rejects.toThrow(TerminalConflictError);
      await fx.store.append(run.run_id, [finished('t1', 2)]);
      const read = await fx.store.read(run.run_id);
      expect(read.events.map((e) => (e.event === 'task_finished' ? `${e.task_id}#${e.attempt}:${e.status}` : e.event))).toEqual(['t1#1:completed', 't1#2:completed']);
      expect(read.conflicts).toEqual([]);
    });

    it('never trusts a second terminal record written around it', async () => {
      const run = await fx.store.createRun(RUN_FIELDS);
      const [first] = await fx.store.append(run.run_id, [finished('t1', 1)]);
      const name = eventFileName('task_finished', 't1', 1);
      const raw = fx.writeRaw(run.run_id, 'events', name, JSON.stringify({ ...first, status: 'failed' }));
      if (fx.secondTerminal === 'refused') {
        await expect(raw).rejects.toThrow(/events_one_terminal/);
        expect((await fx.store.read(run.run_id)).conflicts).toEqual([]);
      } else {
        await raw;
        const read = await fx.store.read(run.run_id);
        expect(read.conflicts).toEqual([{ task: 't1', attempt: 1, files: [read.events[0]!.file, name] }]);
      }
    });

    it('reports a malformed record by name and never trusts it', async () => {
      const run = await fx.store.createRun(RUN_FIELDS);
      await fx.store.append(run.run_id, [entered('team-exec')]);
      const bad = eventFileName('stage_entered');
      await fx.writeRaw(run.run_id, 'events', bad, JSON.stringify({ ...entered('team-verify'), at: 'x', run_id: run.run_id, iteration: 'one' }));
      const unknown = eventFileName('bogus');
      await fx.writeRaw(run.run_id, 'events', unknown, JSON.stringify({ event: 'bogus', at: 'x', run_id: run.run_id }));
      await fx.store.append(run.run_id, [finished('t9', 1)]);
      const read = await fx.store.read(run.run_id);
      expect(read.events.map((e) => (e.event === 'stage_entered' ? e.stage : e.event))).toEqual(['team-exec', 'task_finished']);
      expect(read.malformed).toEqual([
        { file: `events/${bad}`, reason: expect.stringMatching(/^invalid stage_entered event: iteration: .*; ignored$/) },
        { file: `events/${unknown}`, reason: 'unknown event "bogus"; ignored' },
      ]);
    });

    it('names the current run: none at first, then the latest created', async () => {
      expect(await fx.store.current()).toBeUndefined();
      await fx.store.createRun(RUN_FIELDS, 'run-a');
      await fx.store.createRun(RUN_FIELDS, 'run-b');
      expect(await fx.store.current()).toBe('run-b');
    });

    it('refuses to read, append to or approve in a run it does not hold', async () => {
      for (const call of [() => fx.store.read('no-such-run'), () => fx.store.append('no-such-run', [entered('x')]), () => fx.store.approvals('no-such-run', '/')]) {
        await expect(call()).rejects.toThrow(UsageError);
        await expect(call()).rejects.toThrow(/^--run: no run no-such-run in /);
      }
    });
  });

  approvalConformance(() => fx);
  runsConformance(() => fx);
  inboxConformance(() => fx);
}

// The store conformance suite, continued: approvals and their staleness, and the determinism check
// of the real machine replay over what the store reads back.
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashFile } from '../../src/log/approvals.js';
import { approvalFileName } from '../../src/log/write.js';
import type { NewEvent } from '../../src/log/schema.js';
import { DeterminismError } from '../../src/sys/errors.js';
import { replayRun } from '../../src/session/replay.js';
import { Driver, makeInput } from '../machines/drive.js';
import { fixOnce, independent, toExec, toVerify, verifyOnce } from '../machines/routes.js';
import type { StoreFixture } from './conformance.js';
import { appendSteps, RUN_FIELDS, toSteps } from './records.js';

// Machine routes whose logs a store must fold back to the same state.
const ROUTES: Record<string, () => Driver> = {
  'a run that passes at once': () => verifyOnce(toVerify(toExec(new Driver())), 'pass'),
  'two workers, a failed verify and a fix loop': () => {
    const d = toVerify(toExec(new Driver(makeInput({ workers: 2 })), independent(3)), { t2: 1 });
    verifyOnce(d, 'fail', [{ id: 'd1', description: 'broken' }]);
    return verifyOnce(fixOnce(d), 'pass');
  },
};

// Registers the approval and replay behaviours; `fixture` gives the test's fresh store.
export function approvalConformance(fixture: () => StoreFixture): void {
  let project: string;
  beforeEach(() => {
    project = mkdtempSync(join(tmpdir(), 'teamline-store-project-'));
  });
  afterEach(() => rmSync(project, { recursive: true, force: true }));

  describe('approvals', () => {
    it('are fresh while the artifact is unchanged, stale once it changes or is gone', async () => {
      const { store } = fixture();
      const run = await store.createRun(RUN_FIELDS);
      writeFileSync(join(project, 'plan.md'), 'the plan\n');
      writeFileSync(join(project, 'prd.md'), 'the prd\n');
      for (const [stage, artifact] of [['team-plan', 'plan.md'], ['team-prd', 'prd.md']] as const) {
        await store.approve(run.run_id, { stage, artifact, sha256: hashFile(join(project, artifact)), by: 'ann', approved_at: '2026-12-01T00:00:00.000Z', note: '' });
      }
      expect((await store.approvals(run.run_id, project)).map((a) => [a.stage, a.stale])).toEqual([['team-plan', false], ['team-prd', false]]);
      writeFileSync(join(project, 'plan.md'), 'another plan\n');
      unlinkSync(join(project, 'prd.md'));
      const now = await store.approvals(run.run_id, project);
      expect(now.map((a) => [a.stage, a.stale, a.staleReason])).toEqual([
        ['team-plan', true, `the artifact changed (sha256 now ${hashFile(join(project, 'plan.md')).slice(0, 12)}…)`],
        ['team-prd', true, 'the artifact is gone'],
      ]);
      expect((await store.read(run.run_id)).approvals.map((a) => a.by)).toEqual(['ann', 'ann']);
    });

    it('never trusts a malformed approval, and reports it by name', async () => {
      const { store, writeRaw } = fixture();
      const run = await store.createRun(RUN_FIELDS);
      const approval = { stage: 'team-plan', artifact: 'plan.md', sha256: 'not-a-hash', by: 'ann', approved_at: 'x', note: '' };
      const name = approvalFileName(approval);
      await writeRaw(run.run_id, 'approvals', name, JSON.stringify(approval));
      expect(await store.approvals(run.run_id, project)).toEqual([]);
      const read = await store.read(run.run_id);
      expect(read.approvals).toEqual([]);
      expect(read.malformed).toEqual([{ file: `approvals/${name}`, reason: expect.stringMatching(/^invalid approval: sha256: .*; ignored$/) }]);
    });
  });

  describe('replay of what the store reads', () => {
    for (const [route, drive] of Object.entries(ROUTES)) {
      it(`folds ${route} to the machine's own state and context`, async () => {
        const { store } = fixture();
        const d = drive();
        const run = await store.createRun(RUN_FIELDS);
        await appendSteps(store, run.run_id, toSteps(d.log));
        const read = await store.read(run.run_id);
        expect(read.malformed).toEqual([]);
        expect(read.events).toHaveLength(d.log.length);
        const replay = replayRun(read.events);
        expect(replay.pending).toEqual([]);
        expect(replay.snapshot.value).toEqual(d.snapshot.value);
        expect(replay.snapshot.context).toEqual({ ...d.context, inPlace: true });
      });
    }

    it('finds a record the machine would not have made, naming it', async () => {
      const { store } = fixture();
      const d = ROUTES['two workers, a failed verify and a fix loop']!();
      const reassign = (r: NewEvent): NewEvent => (r.event === 'tasks_assigned' ? { ...r, tasks: r.tasks.map((t) => (t.task_id === 't2' ? { ...t, worker: 'worker-9' } : t)) } : r);
      const steps = toSteps(d.log).map((step) => step.map(reassign));
      const run = await store.createRun(RUN_FIELDS);
      await appendSteps(store, run.run_id, steps);
      const read = await store.read(run.run_id);
      const tampered = read.events.find((e) => e.event === 'tasks_assigned')!;
      expect(() => replayRun(read.events)).toThrow(DeterminismError);
      expect(() => replayRun(read.events)).toThrow(`events/${tampered.file} records tasks_assigned(task_id=t2 worker=worker-9), but replaying the log gives tasks_assigned(task_id=t2 worker=worker-2)`);
    });
  });
}

// The checkpoint's fields follow the run: blocked for a decision, failed when cancelled, running tasks as the step.
import { describe, expect, it } from 'vitest';
import { runPaths } from '../../src/log/write.js';
import { foldRun } from '../../src/log/fold/fold.js';
import { makeCheckpointFields } from '../../src/checkpoint/fields.js';
import { validateCheckpoint } from '../../src/checkpoint/validate.js';
import { finished, makeRunFiles, RUN_ID, started } from '../helpers/runs.js';

const PATHS = runPaths('/nonexistent/project', RUN_ID);
const HEAD = [
  { event: 'stage_entered', stage: 'team-exec', iteration: 1, loop: 0 },
  { event: 'task_assigned', task_id: 't1', worker: 'worker-1', task: { id: 't1', title: 'Schema', description: 'd' } },
  { event: 'task_assigned', task_id: 't2', worker: 'worker-2', task: { id: 't2', title: 'Handler', description: 'd' } },
];

function checkpointOf(events: Array<Record<string, unknown>>) {
  const files = makeRunFiles(events);
  const fields = makeCheckpointFields(foldRun(files, PATHS.projectDir), PATHS);
  const doc = { ...fields, project: 'p', project_dir: '/nonexistent/project', created_at: '2026-10-28T13:10:00.000Z', updated_at: '2026-10-28T13:11:00.000Z' };
  return { doc: doc as Record<string, any>, verdict: validateCheckpoint(doc, 'team.checkpoint.json', Date.parse('2026-10-28T13:12:00Z')) };
}

describe('checkpoint fields', () => {
  it('names the running tasks as the step of a run in progress, with a next action', () => {
    const { doc, verdict } = checkpointOf([...HEAD, started('t1'), started('t2'), finished('t2', 1, 'completed')]);
    expect(verdict).toEqual({ errors: [], warnings: [] });
    expect(doc).toMatchObject({ status: 'in_progress', phase: 'team-exec', step: 't1', blockers: [] });
    expect(doc.progress_table).toEqual([
      { id: 't1', label: 'Schema', status: 'in_progress' },
      { id: 't2', label: 'Handler', status: 'complete' },
    ]);
    expect(doc.next_actions[0].text).toContain(`team watch --run ${RUN_ID}`);
  });

  it('labels the tasks of one tasks_assigned record, as it does those of task_assigned records', () => {
    const assigned = { event: 'tasks_assigned', tasks: HEAD.slice(1).map((e) => ({ task_id: e.task_id, worker: e.worker, task: e.task })) };
    const { doc } = checkpointOf([HEAD[0]!, assigned, started('t1'), started('t2'), finished('t2', 1, 'completed')]);
    expect(doc.progress_table).toEqual([
      { id: 't1', label: 'Schema', status: 'in_progress' },
      { id: 't2', label: 'Handler', status: 'complete' },
    ]);
  });

  it('is blocked with a user decision per interrupted attempt when the run stopped', () => {
    const { doc, verdict } = checkpointOf([...HEAD, started('t1'), finished('t1', 1, 'interrupted'), { event: 'run_stopped', reason: 'waiting for a decision', attempts: ['t1#a1'] }]);
    expect(verdict).toEqual({ errors: [], warnings: [] });
    expect(doc.status).toBe('blocked');
    expect(doc.blockers).toEqual([
      { id: 'decide-t1', description: 't1 attempt 1 is interrupted: the run stopped for a decision (waiting for a decision)', blocking: 't1', needs: 'user_decision', proposed_resolution: `team resume --run ${RUN_ID} --retry-interrupted` },
    ]);
    expect(doc.progress_table[0]).toEqual({ id: 't1', label: 'Schema', status: 'blocked' });
  });

  it('records a cancelled run as failed, with the cancel in skill_state', () => {
    const { doc, verdict } = checkpointOf([...HEAD, started('t1'), { event: 'cancel_requested', by: 'SIGINT', force: false }, finished('t1', 1, 'interrupted'), { event: 'run_cancelled', reason: 'cancelled by SIGINT' }]);
    expect(verdict.errors).toEqual([]);
    expect(doc).toMatchObject({ status: 'failed', step: 'cancelled', skill_state: { run_status: 'cancelled', outcome: 'cancelled by SIGINT' } });
    expect(doc.recently_done[0]).toEqual({ at: expect.any(String), action: 'run cancelled' });
  });
});

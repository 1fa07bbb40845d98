import { describe, expect, it } from 'vitest';
import { getShortestPaths } from 'xstate/graph';
import { indexTasks } from '../../machines/task-index.js';
import type { PipelineContext, TaskDef } from '../../machines/types.js';
import { Driver, LIMITS, makeInput } from './drive.js';
import { ALL, keyOf, pipelineMachine, proposeEvents } from './graph.js';

// The index as a fresh count of the tasks would make it (the running ids as a set).
function recount(c: PipelineContext) {
  const fresh = indexTasks(c.tasks);
  return { counts: fresh.counts, running: [...fresh.running].sort() };
}

function kept(c: PipelineContext) {
  return { counts: c.taskIndex.counts, running: [...c.taskIndex.running].sort() };
}

const task = (id: string, blockedBy: string[] = []): TaskDef => ({ id, title: id, description: id, blockedBy, acceptance: ['ok'] });

describe('machines/task-index', () => {
  it('matches a fresh count of the tasks in every state the graph reaches', () => {
    const input = makeInput({ workers: 1, limits: { ...LIMITS, maxFixLoops: 2 } });
    const paths = getShortestPaths(pipelineMachine, { input, events: (s) => proposeEvents(s, ALL), serializeState: (s) => keyOf(s) });
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) expect(kept(path.state.context)).toEqual(recount(path.state.context));
  });

  it('matches a fresh count through retries, blocked tasks, a fix loop and a cancel with several workers', () => {
    const d = new Driver(makeInput({ workers: 2 }));
    d.finishStage('completed', { type: 'plan.accepted', task_id: 'plan', attempt: 1, tasks: [task('a'), task('b', ['a']), task('c'), task('d', ['c'])], needsPrd: false }).handoff();
    const check = () => expect(kept(d.context)).toEqual(recount(d.context));
    check();
    d.finishTask('a', 'failed');
    check();
    d.finishTask('a', 'failed');
    check();
    expect(d.context.tasks.b!.status).toBe('failed');
    d.finishTask('c');
    check();
    d.send({ type: 'cancel.requested', force: false });
    check();
    for (const id of d.running()) d.finishTask(id, 'interrupted');
    check();
    expect(d.context.taskIndex.counts.running).toBe(0);
  });

  it('leaves the context of the step before as it was', () => {
    const d = new Driver(makeInput({ workers: 1 }));
    d.finishStage('completed', { type: 'plan.accepted', task_id: 'plan', attempt: 1, tasks: [task('a'), task('b')], needsPrd: false }).handoff();
    const before = d.context;
    const beforeIndex = JSON.stringify(before.taskIndex);
    const beforeTasks = JSON.stringify(before.tasks);
    d.finishTask('a');
    expect(JSON.stringify(before.taskIndex)).toBe(beforeIndex);
    expect(JSON.stringify(before.tasks)).toBe(beforeTasks);
    expect(d.context.tasks.b!.status).toBe('running');
  });

  it('makes the same records and context when the steps change the task map in place', () => {
    const drive = (inPlace: boolean) => {
      const d = new Driver(makeInput({ workers: 2, ...(inPlace ? { inPlace } : {}) }));
      d.finishStage('completed', { type: 'plan.accepted', task_id: 'plan', attempt: 1, tasks: [task('a'), task('b', ['a']), task('c'), task('d', ['c']), task('e')], needsPrd: false }).handoff();
      d.finishTask('a', 'failed').finishTask('c').finishTask('a', 'failed').runExec().handoff();
      return d;
    };
    const copying = drive(false);
    const inPlace = drive(true);
    expect(inPlace.records).toEqual(copying.records);
    expect(inPlace.context).toEqual({ ...copying.context, inPlace: true });
    expect(kept(inPlace.context)).toEqual(recount(inPlace.context));
  });
});

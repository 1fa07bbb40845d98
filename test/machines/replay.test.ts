import { describe, expect, it } from 'vitest';
import type { TeamEvent } from '../../src/log/schema.js';
import { DeterminismError } from '../../src/sys/errors.js';
import { replayRun } from '../../src/session/replay.js';
import { DIAMOND, Driver, makeInput } from './drive.js';
import { driverWith, fixOnce, independent, T1, toExec, toVerify, verifyOnce } from './routes.js';

// Routes through the machine, each leaving its synthetic log in the driver.
const ROUTES: Record<string, () => Driver> = {
  'a team run that passes at once': () => verifyOnce(toVerify(toExec(new Driver())), 'pass'),
  'a diamond graph on 2 workers with a retried task and 2 fix loops': () => {
    const d = toVerify(toExec(new Driver(makeInput({ workers: 2 })), DIAMOND), { c: 1 });
    verifyOnce(d, 'fail');
    verifyOnce(fixOnce(d), 'fail', [{ id: 'd2', description: 'still broken' }]);
    return verifyOnce(fixOnce(d), 'pass');
  },
  'a PRD stage and a gate': () => {
    const d = new Driver(makeInput({ gates: ['npm test'] })).plan([{ id: 't1', title: 'T1', description: 'one' }]).handoff();
    const { id, attempt } = d.context.stageAttempt!;
    d.finishStage('completed', { type: 'prd.accepted', task_id: id, attempt, acceptance: { t1: ['works'] } }).handoff();
    d.runExec().handoff().send({ type: 'gates.result', gates: [{ command: 'npm test', exitCode: 0, timedOut: false, durationMs: 3, output: 'ok' }] });
    return verifyOnce(d, 'pass');
  },
  'a planner that fails twice': () => new Driver().finishStage('failed').finishStage('failed').handoff(),
  'seven tasks on three workers under own-first, one of them moved': () => {
    const d = toExec(driverWith({}, { workers: 3, schedule: 'own-first' }), independent(7));
    d.finishTask('t3').finishTask('t6').finishTask('t1').finishTask('t2');
    return verifyOnce(toVerify(d), 'pass');
  },
  'an interrupted attempt, a stop and a resume that retries it': () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), independent(2)).finishTask('t1', 'interrupted').finishTask('t2');
    d.send({ type: 'run.resumed', retry_interrupted: false }).send({ type: 'run.resumed', retry_interrupted: true });
    return verifyOnce(toVerify(d), 'pass');
  },
  'a task.retry out of a stop': () => {
    const d = toExec(new Driver()).finishTask('t1', 'interrupted');
    return d.send({ type: 'task.retry', task_id: 't1', attempt: 2, reason: 'by hand' }).finishTask('t1');
  },
  'a cancel while tasks run': () => {
    const d = toExec(new Driver(), independent(4)).send({ type: 'cancel.requested', force: false });
    return d.finishTask('t1', 'interrupted').finishTask('t2').finishTask('t3', 'failed').handoff();
  },
  'two ralph iterations, the second approved': () => {
    const d = driverWith({ maxFixLoops: 1, maxIterations: 3 }, { mode: 'ralph' });
    verifyOnce(toVerify(toExec(d)), 'pass').review('reject').handoff();
    verifyOnce(fixOnce(d), 'pass').review('reject').handoff();
    return verifyOnce(toVerify(toExec(d)), 'pass').review('approve').handoff();
  },
};

const isInput = (e: TeamEvent) => ['task_finished', 'plan_accepted', 'prd_accepted', 'verify_result', 'review_result', 'gates_result', 'handoff_written', 'task_retry', 'run_resumed', 'cancel_requested'].includes(e.event);

describe('replayRun on machine logs', () => {
  for (const [name, route] of Object.entries(ROUTES)) {
    it(`reproduces the final state and context of ${name}`, () => {
      const d = route();
      const replay = replayRun(d.log);
      expect(replay.pending).toEqual([]);
      expect(replay.snapshot.value).toEqual(d.snapshot.value);
      // The replay's actor changes its task map in place (inPlace); the driver's pure transitions copy it.
      expect(replay.snapshot.context).toEqual({ ...d.context, inPlace: true });
    });
  }

  it('replays a run with the schedule its run_started names: under plan order, the same log is a drift', () => {
    const d = ROUTES['seven tasks on three workers under own-first, one of them moved']!();
    expect(d.log.filter((e) => e.event === 'task_assigned')).not.toEqual([]);
    const asEarlier = d.log.map((e) => {
      if (e.event !== 'run_started') return e;
      const { schedule: _schedule, ...rest } = e;
      return rest as TeamEvent;
    });
    expect(() => replayRun(asEarlier)).toThrow(DeterminismError);
  });

  it('skips facts the machine does not use', () => {
    const d = ROUTES['a team run that passes at once']!();
    const noise = { event: 'attempt_stalled', at: 'x', run_id: 'run-1', task_id: 't1', attempt: 1, silent_ms: 400_000 } as TeamEvent;
    const log = d.log.flatMap((e) => (e.event === 'task_finished' ? [noise, e] : [e]));
    expect(replayRun(log).snapshot.value).toBe('done');
  });

  it('skips the git facts of the watch on the checkout, restored branches and stale locks', () => {
    const d = ROUTES['a team run that passes at once']!();
    const state = { head: 'abc', branch: 'main', branches: { main: 'abc' }, files: {} };
    const at = { at: 'x', run_id: 'run-1' };
    const facts = [
      { event: 'checkout_recorded', ...at, state },
      { event: 'checkout_changed', ...at, changes: ['files changed: a.txt'], seen: 'at the merge of t1', attempts: ['t1 a1 on worker-1'], state },
      { event: 'checkout_acknowledged', ...at, changes: 1 },
      { event: 'branch_restored', ...at, branch: 'team/run-1', commit: 'abc', was: 'def', kept: 'team/run-1-kept/integration-def' },
      { event: 'git_lock_stale', ...at, path: '/p/.git/index.lock', removed: false },
    ] as TeamEvent[];
    const log = d.log.flatMap((e) => (e.event === 'task_finished' ? [...facts, e] : [e]));
    expect(replayRun(log).snapshot.value).toBe('done');
    expect(replayRun(log).snapshot.context).toEqual(replayRun(d.log).snapshot.context);
  });

  it('throws a DeterminismError when a record names another worker', () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), independent(2));
    const log = d.log.map((e) => (e.event === 'tasks_assigned' ? { ...e, tasks: e.tasks.map((t) => (t.task_id === 't2' ? { ...t, worker: 'worker-1' } : t)) } : e));
    expect(() => replayRun(log)).toThrow(DeterminismError);
    expect(() => replayRun(log)).toThrow(/tasks_assigned\(task_id=t2 worker=worker-1\), but replaying the log gives tasks_assigned\(task_id=t2 worker=worker-2\)/);
  });

  it('throws a DeterminismError when the tasks of a step are not the ones replay assigns', () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), independent(2));
    const log = d.log.map((e) => (e.event === 'tasks_assigned' ? { ...e, tasks: e.tasks.slice(0, 1) } : e));
    expect(() => replayRun(log)).toThrow(/tasks_assigned\(no task here\), but replaying the log gives tasks_assigned\(task_id=t2 worker=worker-2\)/);
  });

  it('names the field that differs when the two records are alike as named', () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), independent(2));
    const log = d.log.map((e) => (e.event === 'tasks_assigned' ? { ...e, note: 'added by hand' } : e));
    expect(() => replayRun(log)).toThrow(/records tasks_assigned\(2 tasks\) with note differing, but replaying the log gives tasks_assigned\(2 tasks\)$/);
  });

  it('replays a log written with one task_assigned per task, as logs were before the tasks of a step were one record', () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), independent(2));
    const log = d.log.flatMap((e) => (e.event === 'tasks_assigned' ? e.tasks.map((t) => ({ event: 'task_assigned' as const, at: e.at, run_id: e.run_id, ...t })) : [e]));
    expect(log.filter((e) => e.event === 'task_assigned')).toHaveLength(2);
    expect(replayRun(log).snapshot.value).toEqual(replayRun(d.log).snapshot.value);
    expect(replayRun(log).snapshot.context.tasks).toEqual(replayRun(d.log).snapshot.context.tasks);
    // Each record still has to be the one replay makes.
    const edited = log.map((e) => (e.event === 'task_assigned' && e.task_id === 't2' ? { ...e, worker: 'worker-1' } : e));
    expect(() => replayRun(edited)).toThrow(/task_assigned\(task_id=t2 worker=worker-1\), but replaying the log gives task_assigned\(task_id=t2 worker=worker-2\)/);
  });

  it('throws a DeterminismError when a task_started has another attempt', () => {
    const d = toExec(new Driver()).finishTask('t1', 'failed');
    const log = d.log.map((e) => (e.event === 'task_started' && e.task_id === 't1' && e.attempt === 2 ? { ...e, attempt: 3 } : e));
    expect(() => replayRun(log)).toThrow(DeterminismError);
  });

  it('throws a DeterminismError when a record is missing before the next input', () => {
    const d = verifyOnce(toVerify(toExec(new Driver())), 'pass');
    const index = d.log.findIndex((e) => e.event === 'stage_skipped');
    const log = [...d.log.slice(0, index), ...d.log.slice(index + 1)];
    expect(() => replayRun(log)).toThrow(/arrived before the records|replaying the log gives/);
  });

  it('throws a DeterminismError on a record the machine never made', () => {
    const d = toExec(new Driver());
    const extra = { event: 'task_blocked', at: 'x', run_id: 'run-1', task_id: 't1', reason: 'made up' } as TeamEvent;
    expect(() => replayRun([...d.log, extra])).toThrow(/no record here/);
  });

  it('returns the records of a transition the log was cut after as pending', () => {
    const d = toExec(new Driver(), [T1, { ...T1, id: 't2' }]);
    const cut = d.log.findIndex((e) => e.event === 'handoff_written');
    const expected = d.log.slice(cut + 1).map(({ at: _at, run_id: _run, file: _file, ...rest }: TeamEvent & { file?: string }) => rest);
    expect(expected.map((r) => r.event)).toEqual(['stage_skipped', 'stage_entered', 'task_started', 'task_started']);
    const replay = replayRun(d.log.slice(0, cut + 1));
    expect(replay.pending).toEqual(expected);
    expect(replay.snapshot.value).toEqual({ exec: 'working' });
  });

  it('returns the rest as pending when the log was cut between two records of one transition', () => {
    const d = toExec(new Driver(), [T1, { ...T1, id: 't2' }]);
    const lastInput = d.log.map(isInput).lastIndexOf(true);
    const replay = replayRun(d.log.slice(0, lastInput + 3));
    expect(replay.pending.map((r) => r.event)).toEqual(['task_started', 'task_started']);
  });

  it('throws a DeterminismError for a log without run_started', () => {
    expect(() => replayRun(new Driver().log.slice(1))).toThrow(DeterminismError);
  });
});

import { describe, expect, it } from 'vitest';
import type { TeamEvent } from '../../machines/events.js';
import { replayRun } from '../../src/runtime/replay.js';
import { DIAMOND, Driver, makeInput } from './drive.js';
import { resumeAt } from './resume.js';
import { driverWith, fixOnce, independent, toExec, toVerify, verifyOnce } from './routes.js';

const failingGate = { command: 'npm test', exitCode: 1, timedOut: false, durationMs: 3, output: 'not ok' };
const passingGate = { ...failingGate, exitCode: 0, output: 'ok' };

// Recorded runs: each route leaves the log the runtime would have written.
const ROUTES: Record<string, () => Driver> = {
  'a failing gate and a failing verifier, then a fix loop that passes': () => {
    const d = toVerify(toExec(new Driver(makeInput({ gates: ['npm test'] })))).send({ type: 'gates.result', gates: [failingGate] });
    verifyOnce(d, 'fail', [{ id: 'd1', description: 'broken' }]);
    d.handoff().runExec().handoff().send({ type: 'gates.result', gates: [passingGate] });
    return verifyOnce(d, 'pass');
  },
  'a diamond graph on 2 workers with a retried task and 2 fix loops': () => {
    const d = toVerify(toExec(new Driver(makeInput({ workers: 2 })), DIAMOND), { c: 1 });
    verifyOnce(d, 'fail');
    verifyOnce(fixOnce(d), 'fail', [{ id: 'd2', description: 'still broken' }]);
    return verifyOnce(fixOnce(d), 'pass');
  },
  'a failed exec task that verify turns into a fix task': () => {
    const d = toVerify(toExec(new Driver(makeInput({ workers: 2 })), independent(2)), { t2: 2 });
    return verifyOnce(fixOnce(verifyOnce(d, 'pass')), 'pass');
  },
  'a cancel while tasks run': () => {
    const d = toExec(new Driver(), independent(3)).send({ type: 'cancel.requested', force: false });
    return d.finishTask('t1', 'interrupted').finishTask('t2').finishTask('t3', 'failed').handoff();
  },
  'a ralph run rejected once': () => {
    const d = driverWith({ maxFixLoops: 1, maxIterations: 3 }, { mode: 'ralph' });
    verifyOnce(toVerify(toExec(d)), 'pass').review('reject').handoff();
    return verifyOnce(fixOnce(d), 'pass').review('approve').handoff();
  },
};

const fixTasks = (log: TeamEvent[]) => log.filter((e) => e.event === 'task_assigned' && e.task_id.includes('fix')).map((e) => (e as { task_id: string }).task_id);

describe('runtime.resume (a takeover at every recorded transition)', () => {
  for (const [name, route] of Object.entries(ROUTES)) {
    it(`leaves the state of a fresh fold and a log that replays, at every cut of ${name}`, () => {
      const original = route();
      for (let cut = 1; cut <= original.log.length; cut++) {
        const resumed = resumeAt(original.log, cut);
        const where = `cut after event ${cut} (${original.log[cut - 1]!.event})`;
        expect(resumed.resumeRecords, where).toEqual([]);
        expect(resumed.afterResume.context, where).toEqual(resumed.folded.context);
        expect(resumed.afterResume.value, where).toEqual(resumed.folded.value);
        const replay = replayRun(resumed.log);
        expect(replay.pending, where).toEqual([]);
        expect(replay.snapshot.value, where).toEqual(original.snapshot.value);
        expect(replay.snapshot.context.defects, where).toEqual(original.context.defects);
        expect(fixTasks(resumed.log), where).toEqual(fixTasks(original.log));
        expect(resumed.log.filter((e) => e.event === 'fix_loop_started'), where).toHaveLength(original.log.filter((e) => e.event === 'fix_loop_started').length);
      }
    });
  }
});

// Recorded runs for the resume and replay tests: each route leaves the log the runtime would have written.
import { DIAMOND, Driver, makeInput } from './drive.js';
import { driverWith, fixOnce, independent, toExec, toVerify, verifyOnce } from './routes.js';

const failingGate = { command: 'npm test', exitCode: 1, timedOut: false, durationMs: 3, output: 'not ok' };
const passingGate = { ...failingGate, exitCode: 0, output: 'ok' };

export const RECORDED_ROUTES: Record<string, () => Driver> = {
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

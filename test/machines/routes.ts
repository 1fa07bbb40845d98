// Small route helpers on top of the Driver, shared by the machine tests.
import type { Defect, PipelineInput, TaskDef } from '../../machines/types.js';
import { Driver, LIMITS, makeInput } from './drive.js';

export const T1: TaskDef = { id: 't1', title: 'T1', description: 'one', acceptance: ['ok'] };

// Independent tasks t1..tn, each with acceptance criteria.
export function independent(count: number): TaskDef[] {
  return Array.from({ length: count }, (_, i) => ({ id: `t${i + 1}`, title: `T${i + 1}`, description: `task ${i + 1}`, acceptance: ['ok'] }));
}

// A driver whose input has these limits changed.
export function driverWith(limits: Partial<typeof LIMITS>, input: Partial<PipelineInput> = {}): Driver {
  return new Driver(makeInput({ ...input, limits: { ...LIMITS, ...limits } }));
}

// Plans the tasks (no PRD) and writes the plan handoff: the driver ends in exec.working.
export function toExec(d: Driver, tasks: TaskDef[] = [T1]): Driver {
  return d.plan(tasks).handoff();
}

// Runs exec to its end and writes the exec handoff: the driver ends in verify (its verifier, when there is no gate).
export function toVerify(d: Driver, fail: Record<string, number> = {}): Driver {
  return d.runExec(fail).handoff();
}

// One whole verify stage with this verdict, its handoff included.
export function verifyOnce(d: Driver, verdict: 'pass' | 'fail', defects?: Defect[]): Driver {
  return d.verify(verdict, defects).handoff();
}

// One fix loop after a failed verify: the fix handoff, the fix tasks run, the exec handoff.
export function fixOnce(d: Driver): Driver {
  return toVerify(d.handoff());
}

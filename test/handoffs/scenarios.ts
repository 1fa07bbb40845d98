// Realistic pipeline contexts, built by hand, one per kind of handoff; also re-exports the blocks.
import type { GateResult, PipelineContext, TaskDef } from '../../machines/types.js';
import { makeContext, makeTask, withTasks } from './contexts.js';

export * from './contexts.js';

export const PLAN: TaskDef[] = [
  { id: 'schema', title: 'Define request schemas with zod', description: 'One zod schema per endpoint body', acceptance: ['every POST body has a schema'] },
  { id: 'middleware', title: 'Validation middleware', description: 'Reject invalid bodies with 400', blockedBy: ['schema'], acceptance: ['invalid body → 400 with field path'] },
  { id: 'errors', title: 'Error format', description: 'Uniform error JSON', blockedBy: ['schema'] },
  { id: 'docs', title: 'Document validation errors', description: 'README section', blockedBy: ['middleware', 'errors'], role: 'writer' },
];

// Right after the plan was accepted: four tasks pre-assigned round robin.
export function makePlannedContext(): PipelineContext {
  const workers = ['worker-1', 'worker-2', 'worker-3', 'worker-1'];
  const tasks = PLAN.map((def, i) => makeTask(def, { worker: workers[i]!, role: def.role ?? 'executor' }));
  return withTasks(
    makeContext({ needsPrd: true, stageAttempt: { id: 'plan', stage: 'team-plan', role: 'planner', attempt: 1, failures: 0, status: 'completed', evidence: 'Split the work by layer:\nschemas first, then middleware.' } }),
    tasks,
  );
}

// The first exec pass is over: three tasks completed (one after a retry), one failed.
export function makeExecDoneContext(): PipelineContext {
  const planned = makePlannedContext();
  const t = planned.tasks;
  return withTasks(
    { ...planned, stage: 'team-exec', needsPrd: false, handoffs: [{ stage: 'team-plan', path: 'handoffs/01-team-plan.md' }, { stage: 'team-prd', path: 'handoffs/02-team-prd.md' }], workerFailures: { 'worker-2': 1, 'worker-3': 2 } },
    [
      { ...t['schema']!, status: 'completed', attempt: 1, evidence: 'Added src/schemas/user.ts and order.ts; 12 unit tests pass', artifacts: ['src/schemas/user.ts', 'src/schemas/order.ts'] },
      { ...t['middleware']!, status: 'completed', attempt: 2, failures: 1, evidence: 'validate() middleware wired on all POST routes', artifacts: ['src/middleware/validate.ts', 'src/schemas/user.ts'] },
      { ...t['errors']!, status: 'failed', attempt: 2, failures: 2, evidence: 'TypeError: cannot read properties of undefined (reading "issues")\n    at format (src/sys/errors.ts:14)' },
      { ...t['docs']!, status: 'failed', attempt: 0, evidence: 'blocked by failed task errors' },
    ],
  );
}

export const GATES: GateResult[] = [
  { command: 'npm test', exitCode: 1, timedOut: false, durationMs: 4210, output: 'FAIL test/errors.test.ts\n  ✕ formats zod issues' },
  { command: 'npm run lint', exitCode: 0, timedOut: false, durationMs: 1500, output: '' },
];

// Verify failed after the first pass: a gate defect and a verifier defect, fix loops left.
export function makeVerifyFailedContext(): PipelineContext {
  const exec = makeExecDoneContext();
  return {
    ...exec,
    stage: 'team-verify',
    handoffs: [...exec.handoffs, { stage: 'team-exec', path: 'handoffs/03-team-exec.md' }],
    stageAttempt: { id: 'verify-1', stage: 'team-verify', role: 'verifier', attempt: 1, failures: 0, status: 'completed', evidence: 'Error responses lack the field path' },
    gateResults: GATES,
    verdict: 'fail',
    defects: [
      { id: 'gate-1', description: '`npm test` exited 1: FAIL test/errors.test.ts | ✕ formats zod issues' },
      { id: 'field-path', description: 'a 400 response does not name the invalid field', task: 'middleware' },
    ],
  };
}

// team-fix of loop 1: one fix task per defect of the failed verify.
export function makeFixContext(): PipelineContext {
  const verify = makeVerifyFailedContext();
  const fixes = verify.defects.map((d, i) =>
    makeTask({ id: `fix-1-${d.id}`, title: `Fix defect ${d.id}`, description: d.description, acceptance: [`defect ${d.id} no longer reproduces`] }, { kind: 'fix', pass: 1, worker: `worker-${i + 1}` }),
  );
  const tasks = [...verify.order.map((id) => verify.tasks[id]!), ...fixes];
  return withTasks({ ...verify, stage: 'team-fix', loop: 1, verdict: null, gateResults: [], handoffs: [...verify.handoffs, { stage: 'team-verify', path: 'handoffs/04-team-verify.md' }] }, tasks);
}

// A ralph run after verify passed in iteration 2; the architect's reasons are given (empty: approve).
export function makeReviewContext(reasons: string[]): PipelineContext {
  const exec = makeExecDoneContext();
  const done = exec.order.map((id) => ({ ...exec.tasks[id]!, status: 'completed' as const, evidence: exec.tasks[id]!.evidence || 'done' }));
  return withTasks(
    {
      ...exec,
      mode: 'ralph',
      stage: 'ralph-review',
      iteration: 2,
      loop: 1,
      handoffs: [...exec.handoffs, { stage: 'team-exec', path: 'handoffs/03-team-exec.md' }, { stage: 'team-verify', path: 'handoffs/04-team-verify.md' }],
      stageAttempt: { id: 'i2.review-2', stage: 'ralph-review', role: 'architect', attempt: 1, failures: 0, status: 'completed', evidence: 'Validation is per-route; a shared schema registry would be simpler' },
      gateResults: GATES.map((g) => ({ ...g, exitCode: 0, output: '' })),
      verdict: 'pass',
      reviewReasons: reasons,
      defects: reasons.map((reason, i) => ({ id: `review-${i + 1}`, description: reason })),
    },
    done,
  );
}

// Ralph iteration 2 has just been planned; iteration 1 ended with fix loops spent.
export function makeSecondIterationContext(): PipelineContext {
  const planned = makePlannedContext();
  const tasks = planned.order.map((id) => ({ ...planned.tasks[id]!, id: `i2.${id}`, def: { ...planned.tasks[id]!.def, id: `i2.${id}`, blockedBy: planned.tasks[id]!.def.blockedBy?.map((d) => `i2.${d}`) } }));
  return withTasks(
    {
      ...planned,
      mode: 'ralph',
      iteration: 2,
      needsPrd: false,
      handoffs: ['team-plan', 'team-exec', 'team-verify', 'team-fix', 'team-exec', 'team-verify'].map((stage, i) => ({ stage: stage as 'team-plan', path: `handoffs/0${i + 1}-${stage}.md` })),
      iterations: [{ iteration: 1, loops: 3, outcome: 'verify failed with fix loops spent', defects: [{ id: 'gate-1', description: '`npm test` exited 1: 3 failing tests in test/errors.test.ts' }], reviewReasons: [] }],
    },
    tasks,
  );
}

// The verifier failed every attempt: the failing state writes the team-verify handoff.
export function makeFailingContext(): PipelineContext {
  const verify = makeVerifyFailedContext();
  const evidence = 'no valid result: the agent exited 1 before writing result.json';
  return {
    ...verify,
    verdict: null,
    defects: [],
    stageAttempt: { id: 'verify-1', stage: 'team-verify', role: 'verifier', attempt: 2, failures: 2, status: 'failed', evidence },
    endingStage: 'team-verify',
    reason: `team-verify failed after 1 failed attempt(s): ${evidence}`,
  };
}

// Cancelled during the first exec pass: one task completed, one cut off, two never started.
export function makeCancelContext(): PipelineContext {
  const planned = makePlannedContext();
  const t = planned.tasks;
  return withTasks(
    { ...planned, stage: 'team-exec', endingStage: 'team-exec', reason: 'cancelled by request', cancelForce: true, handoffs: [{ stage: 'team-plan', path: 'handoffs/01-team-plan.md' }] },
    [
      { ...t['schema']!, status: 'completed', attempt: 1, evidence: 'schemas added', artifacts: ['src/schemas/user.ts'] },
      { ...t['middleware']!, status: 'interrupted', attempt: 1, evidence: '', artifacts: [] },
      t['errors']!,
      t['docs']!,
    ],
  );
}

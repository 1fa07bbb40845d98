// Run logs written by hand from "Files on disk" in docs/formats.md (not produced by the machine): what a
// real run of `team 1:executor "add a greeting"` leaves in events/, with the facts the machine
// ignores (spawns, usage, stalls) where a real run writes them.
import type { TeamEvent } from '../../src/log/schema.js';

const RUN = '20261130T120000000000Z-abc123';
const H = `.team/runs/${RUN}/handoffs`;
const SHA = 'a'.repeat(64);
const LIMITS = { maxTasks: 50, maxFixLoops: 3, maxTaskAttempts: 2, maxIterations: 10, statusCheckMs: 300_000, reassignMs: 600_000, shutdownTimeoutMs: 15_000 };
const T1 = { id: 't1', title: 'Greeting', description: 'print hello', acceptance: ['prints hello'] };
const T2 = { id: 't2', title: 'Test it', description: 'a test for hello', blockedBy: ['t1'], acceptance: ['the test passes'] };
const FIX = { id: 'fix-1-d1', title: 'Fix defect d1', description: 'hello is misspelt', acceptance: ['defect d1 no longer reproduces'] };

type Body = Record<string, unknown> & { event: string };
const seed = { agent: 'claude', session: 's-1', parent_session: '' };
const started = (task_id: string, stage: string, inputs: string[], attempt = 1): Body => ({ event: 'task_started', task_id, stage, attempt, status: 'running', ...seed, inputs, artifacts: [], evidence: '', next: '' });
const finished = (task_id: string, stage: string, status: string, evidence: string, attempt = 1, artifacts: string[] = []): Body => ({ event: 'task_finished', task_id, stage, attempt, status, ...seed, inputs: [], artifacts, evidence, next: '' });
const spawned = (task_id: string, worker: string, pid: number): Body => ({ event: 'attempt_spawned', task_id, attempt: 1, worker, handle: { backend: 'process', pid, pidStart: 4242, pgid: pid } });
const stage = (event: string, name: string, loop = 0): Body => ({ event, stage: name, iteration: 1, loop });
const handoff = (n: number, name: string): Body => ({ event: 'handoff_written', stage: name, path: `${H}/0${n}-${name}.md`, sha256: SHA });

// Stamps every body as the store would: `at`, `run_id` and a file name that sorts in order.
function toLog(bodies: Body[]): TeamEvent[] {
  return bodies.map((body, i) => {
    const s = String(i).padStart(6, '0');
    const task = typeof body.task_id === 'string' ? body.task_id : 'run';
    const attempt = typeof body.attempt === 'number' ? body.attempt : 0;
    return { ...body, at: `2026-11-30T12:00:00.${s}Z`, run_id: RUN, file: `20261130T120000${s}Z-${body.event}-${task}-a${attempt}-tok${s.slice(-3)}.json` } as unknown as TeamEvent;
  });
}

const RUN_STARTED: Body = {
  event: 'run_started', mode: 'team', task: 'add a greeting', workers: 1, agentType: 'executor', limits: LIMITS, gates: [], agents: {}, defaultAgent: 'claude',
  session: 's-1', parent_session: '', workerMode: 'headless', keepPanes: false,
};

// Plan (two tasks, t2 after t1), PRD skipped, exec up to t1's spawn.
const UP_TO_EXEC: Body[] = [
  RUN_STARTED,
  stage('stage_entered', 'team-plan'),
  started('plan', 'team-plan', []),
  spawned('plan', 'lead', 101),
  { event: 'plan_accepted', task_id: 'plan', attempt: 1, tasks: [T1, T2], needsPrd: false },
  { event: 'task_assigned', task_id: 't1', worker: 'worker-1', task: T1 },
  { event: 'task_assigned', task_id: 't2', worker: 'worker-1', task: T2 },
  { event: 'attempt_usage', task_id: 'plan', attempt: 1, stage: 'team-plan', agent: 'claude', session_id: 'c-1', cost_usd: 0.01 },
  finished('plan', 'team-plan', 'completed', 'two tasks planned'),
  stage('stage_completed', 'team-plan'),
  handoff(1, 'team-plan'),
  { event: 'stage_skipped', stage: 'team-prd', iteration: 1, reason: 'the plan does not ask for a PRD and every task has acceptance criteria' },
  stage('stage_entered', 'team-exec'),
  started('t1', 'team-exec', [`${H}/01-team-plan.md`]),
  spawned('t1', 'worker-1', 102),
];

const EXEC_DONE: Body[] = [
  ...UP_TO_EXEC,
  { event: 'attempt_stalled', task_id: 't1', attempt: 1, silent_ms: 310_000 },
  finished('t1', 'team-exec', 'completed', 'hello printed', 1, ['hello.js']),
  started('t2', 'team-exec', [`${H}/01-team-plan.md`]),
  spawned('t2', 'worker-1', 103),
  finished('t2', 'team-exec', 'completed', 'test added', 1, ['hello.test.js']),
  stage('stage_completed', 'team-exec'),
  handoff(2, 'team-exec'),
  stage('stage_entered', 'team-verify'),
  started('verify-1', 'team-verify', [`${H}/01-team-plan.md`, `${H}/02-team-exec.md`]),
  spawned('verify-1', 'lead', 104),
];

const VERIFY_PASSES: Body[] = [
  { event: 'verify_result', task_id: 'verify-1', attempt: 1, verdict: 'pass', defects: [] },
  finished('verify-1', 'team-verify', 'completed', 'all good'),
  stage('stage_completed', 'team-verify'),
  handoff(3, 'team-verify'),
  { event: 'run_completed', summary: 'completed: 2 of 2 tasks completed, 0 fix loop(s)' },
];

// A run that plans, executes two tasks, verifies and completes.
export const COMPLETED = toLog([...EXEC_DONE, ...VERIFY_PASSES]);

// A run whose orchestrator was killed while t1's worker ran: nothing after its spawn.
export const KILLED_MID_EXEC = toLog(UP_TO_EXEC);

// A run whose first verify finds a defect: one fix loop, then verify passes.
export const FIX_LOOP = toLog([
  ...EXEC_DONE,
  { event: 'verify_result', task_id: 'verify-1', attempt: 1, verdict: 'fail', defects: [{ id: 'd1', description: 'hello is misspelt' }] },
  finished('verify-1', 'team-verify', 'completed', 'one defect'),
  stage('stage_completed', 'team-verify'),
  handoff(3, 'team-verify'),
  // Entered before the loop is counted: the fix loop's number is fix_loop_started's.
  stage('stage_entered', 'team-fix', 0),
  { event: 'fix_loop_started', iteration: 1, loop: 1, defects: [{ id: 'd1', description: 'hello is misspelt' }] },
  { event: 'task_assigned', task_id: 'fix-1-d1', worker: 'worker-1', task: FIX },
  handoff(4, 'team-fix'),
  stage('stage_completed', 'team-fix', 1),
  stage('stage_entered', 'team-exec', 1),
  started('fix-1-d1', 'team-fix', [`${H}/01-team-plan.md`, `${H}/02-team-exec.md`, `${H}/03-team-verify.md`, `${H}/04-team-fix.md`]),
  spawned('fix-1-d1', 'worker-1', 105),
  finished('fix-1-d1', 'team-fix', 'completed', 'spelling fixed', 1, ['hello.js']),
  stage('stage_completed', 'team-exec', 1),
  handoff(5, 'team-exec'),
  stage('stage_entered', 'team-verify', 1),
  started('verify-2', 'team-verify', [1, 2, 3, 4, 5].map((n) => `${H}/0${n}-${['team-plan', 'team-exec', 'team-verify', 'team-fix', 'team-exec'][n - 1]}.md`)),
  { event: 'verify_result', task_id: 'verify-2', attempt: 1, verdict: 'pass', defects: [] },
  finished('verify-2', 'team-verify', 'completed', 'all good'),
  stage('stage_completed', 'team-verify', 1),
  handoff(6, 'team-verify'),
  { event: 'run_completed', summary: 'completed: 3 of 3 tasks completed, 1 fix loop(s)' },
]);

// A run cancelled with `team cancel` while t1 ran: t1 is interrupted, a cancel handoff, the end.
export const CANCELLED = toLog([
  ...UP_TO_EXEC,
  { event: 'cancel_requested', by: 'team cancel', force: false },
  finished('t1', 'team-exec', 'interrupted', 'stopped by cancel (cancel)'),
  handoff(2, 'team-cancel'),
  { event: 'run_cancelled', reason: 'cancelled by request' },
]);

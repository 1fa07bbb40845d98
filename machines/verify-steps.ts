// team-verify with reviewers: the verifier and the reviewers routing adds run at once, each an
// attempt of its own; verify passes only when all pass, and their defects say who found each. Pure.
import { prefixFor } from './plan.js';
import { decideReviewers, recordDecisions, routeRole } from './routing.js';
import { taskStartedRecord } from './schedule.js';
import { attemptActorId, lastLines, stageAttemptInput, startStageAttempt, type Step } from './steps.js';
import type { Defect, PipelineContext, PipelineEvent, RoutingDecision, StageAttempt } from './types.js';

type EventOf<T extends PipelineEvent['type']> = Extract<PipelineEvent, { type: T }>;

// The scan of the run's changes arrived: verify decides its reviewers from it.
export function acceptChanges(event: EventOf<'changes.scanned'>): Step {
  return { context: { changes: { files: event.files, security: event.security } } };
}

// Starts the verifier and, with routing, each reviewer the changes call for: the decision first,
// then every attempt's task_started, then the attempts.
export function startVerifyAttempts(context: PipelineContext): Step {
  const verifier = startStageAttempt(context, 'team-verify');
  const chosen = decideReviewers(context);
  if (chosen.length === 0) return { ...verifier, context: { ...verifier.context, reviewers: [], reviews: {} } };
  const decisions: RoutingDecision[] = [];
  const reviewers: StageAttempt[] = [];
  let noting = context;
  for (const { role, why } of chosen) {
    const route = routeRole(noting, role);
    decisions.push({ role, agent: route.agent, why }, ...route.decisions);
    noting = { ...noting, noted: [...noting.noted, ...route.decisions.map((d) => d.role)] };
    const id = `${prefixFor(context.iteration)}verify-${context.loop + 1}.${role}`;
    reviewers.push({ id, stage: 'team-verify', role, attempt: 1, failures: 0, status: 'running', evidence: '' });
  }
  const decided = recordDecisions(context, 'team-verify', decisions);
  return {
    context: { ...verifier.context, ...decided.context, reviewers, reviews: {} },
    records: [...decided.records, ...verifier.records!, ...reviewers.map((r) => taskStartedRecord(context, r.id, 1, r.stage, r.role))],
    spawn: [...verifier.spawn!, ...reviewers.map((r) => stageAttemptInput(context, r.id, 1, r.stage, r.role, r.role))],
  };
}

// The running reviewer a finish event is about, if any.
export function findReviewer(context: PipelineContext, event: { task_id: string; attempt: number }): StageAttempt | undefined {
  return context.reviewers.find((r) => r.status === 'running' && r.id === event.task_id && r.attempt === event.attempt);
}

// A reviewer's verdict and defects.
export function acceptReview(context: PipelineContext, event: EventOf<'verify.result'>): Step {
  return { context: { reviews: { ...context.reviews, [event.task_id]: { verdict: event.verdict, defects: event.defects } } } };
}

// A reviewer's attempt ended: done, tried again (up to maxTaskAttempts failures), or failed for good.
export function finishReviewer(context: PipelineContext, event: EventOf<'task.finished'>): Step {
  const reviewer = findReviewer(context, event)!;
  const failed = event.status === 'failed';
  const failures = reviewer.failures + (failed ? 1 : 0);
  const stop = [attemptActorId(reviewer.id, reviewer.attempt)];
  const put = (next: StageAttempt) => context.reviewers.map((r) => (r.id === next.id ? next : r));
  if (event.status === 'completed') return { context: { reviewers: put({ ...reviewer, status: 'completed', evidence: event.evidence }) }, stop };
  if (failed && (failures >= context.limits.maxTaskAttempts || event.retryable === false)) {
    return { context: { reviewers: put({ ...reviewer, status: 'failed', failures, evidence: event.evidence }) }, stop };
  }
  const next: StageAttempt = { ...reviewer, attempt: reviewer.attempt + 1, failures, status: 'running', evidence: '' };
  return {
    context: { reviewers: put(next) },
    records: [taskStartedRecord(context, next.id, next.attempt, next.stage, next.role)],
    spawn: [stageAttemptInput(context, next.id, next.attempt, next.stage, next.role, next.role)],
    stop,
  };
}

// True once the verifier completed and no reviewer runs any more.
export function isVerifyDone(context: PipelineContext): boolean {
  return context.stageAttempt?.status === 'completed' && !context.reviewers.some((r) => r.status === 'running');
}

// The reviewers' defects, each saying who found it: a failing verdict, or a reviewer that never gave one.
export function reviewerDefects(context: PipelineContext): Defect[] {
  return context.reviewers.flatMap((r): Defect[] => {
    const review = context.reviews[r.id];
    if (r.status === 'failed' || !review) return [{ id: `${r.role}-failed`, description: `the ${r.role} could not review: ${r.evidence || 'no result'}`, by: r.role }];
    if (review.verdict === 'pass') return [];
    if (review.defects.length === 0) return [{ id: r.role, description: `the ${r.role} reported fail without listing defects`, by: r.role }];
    return review.defects.map((d) => ({ ...d, id: `${r.role}-${d.id}`, by: r.role }));
  });
}

// Verify's verdict: every gate exited 0 and the verifier said pass.
export function concludeVerify(context: PipelineContext): Step {
  const gateDefects: Defect[] = context.gateResults
    .map((gate, i) => ({ gate, i }))
    .filter(({ gate }) => gate.exitCode !== 0)
    .map(({ gate, i }) => ({ id: `gate-${i + 1}`, description: `\`${gate.command}\` ${gate.timedOut ? 'timed out' : `exited ${gate.exitCode}`}: ${lastLines(gate.output)}` }));
  const agentDefects = context.verdict === 'fail' && context.defects.length === 0 ? [{ id: 'verdict', description: 'the verifier reported fail without listing defects' }] : context.defects;
  // A task of this pass that ended failed is a defect whatever the verifier says.
  const taskDefects: Defect[] = context.order
    .map((id) => context.tasks[id]!)
    .filter((t) => t.status === 'failed' && t.pass === context.loop)
    .map((t) => ({ id: `task-${t.id}`, description: `task ${t.id} (${t.def.title}) failed: ${t.evidence}`, task: t.id }));
  const found = [...gateDefects, ...taskDefects, ...(context.verdict === 'pass' ? [] : agentDefects)];
  // With routing, each defect says who found it, and the reviewers' join them.
  const by = (list: Defect[], who: string) => list.map((d) => ({ ...d, by: who }));
  const defects = context.routing
    ? [...by(gateDefects, 'gate'), ...by(taskDefects, 'exec'), ...by(context.verdict === 'pass' ? [] : agentDefects, 'verifier'), ...reviewerDefects(context)]
    : found;
  return { context: { defects, verdict: defects.length === 0 && context.verdict === 'pass' ? 'pass' : 'fail' } };
}

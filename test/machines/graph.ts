// The plausible next events of a pipeline snapshot, and a snapshot key, for xstate/graph traversals.
import { getStateNodes, type AnyStateNode } from 'xstate/graph';
import { pipelineMachine } from '../../machines/pipeline.js';
import type { PipelineEvent, TaskDef } from '../../machines/types.js';
import type { PipelineSnapshot } from '../../src/session/replay.js';

export interface Proposals {
  /** cancel.requested in every live state. */
  cancel: boolean;
  /** Exec attempts may end interrupted (attempt 1 only, so that the graph stays finite). */
  interrupt: boolean;
  /** Single-agent stage attempts may fail (retried once, then the run fails). */
  stageFailures: boolean;
}

export const ALL: Proposals = { cancel: true, interrupt: true, stageFailures: true };

const WITH_CRITERIA: TaskDef = { id: 't1', title: 'T1', description: 'one', acceptance: ['ok'] };
const WITHOUT_CRITERIA: TaskDef = { id: 't1', title: 'T1', description: 'one' };
const gate = (exitCode: number) => ({ command: 'npm test', exitCode, timedOut: false, durationMs: 1, output: exitCode ? 'not ok' : 'ok' });

const finished = (task_id: string, attempt: number, status: 'completed' | 'failed' | 'interrupted'): PipelineEvent => ({ type: 'task.finished', task_id, attempt, status, evidence: status, artifacts: [] });

// What could arrive next. A stage attempt completes only after its payload, as the runtime logs them.
export function proposeEvents(s: PipelineSnapshot, p: Proposals = ALL): PipelineEvent[] {
  if (s.status === 'done') return [];
  const c = s.context;
  const out: PipelineEvent[] = p.cancel ? [{ type: 'cancel.requested', force: false }] : [];
  const current = c.stageAttempt?.status === 'running' ? c.stageAttempt : null;
  const ref = { task_id: current?.id ?? '', attempt: current?.attempt ?? 0 };
  const stageEnd = (payloadDone: boolean, payloads: PipelineEvent[]): PipelineEvent[] => {
    if (!current) return [];
    if (!payloadDone) return [...payloads, ...(p.stageFailures ? [finished(ref.task_id, ref.attempt, 'failed')] : [])];
    return [finished(ref.task_id, ref.attempt, 'completed'), ...(p.stageFailures ? [finished(ref.task_id, ref.attempt, 'failed')] : [])];
  };
  const runningTasks = Object.values(c.tasks).filter((t) => t.status === 'running');
  if (s.matches({ plan: 'working' })) {
    out.push(...stageEnd(c.order.length > 0, [
      { type: 'plan.accepted', ...ref, tasks: [WITH_CRITERIA], needsPrd: false },
      { type: 'plan.accepted', ...ref, tasks: [WITHOUT_CRITERIA], needsPrd: false },
    ]));
  } else if (s.matches({ prd: 'working' })) {
    const missing = Object.values(c.tasks).some((t) => !t.def.acceptance?.length);
    out.push(...stageEnd(!missing, [{ type: 'prd.accepted', ...ref, acceptance: { t1: ['ok'] } }]));
  } else if (s.matches({ verify: 'gates' })) {
    out.push({ type: 'gates.result', gates: [gate(0)] }, { type: 'gates.result', gates: [gate(1)] });
  } else if (s.matches({ verify: 'verifier' })) {
    out.push(...stageEnd(c.verdict !== null, [
      { type: 'verify.result', ...ref, verdict: 'pass', defects: [] },
      { type: 'verify.result', ...ref, verdict: 'fail', defects: [{ id: 'd1', description: 'broken' }] },
    ]));
  } else if (s.matches({ review: 'working' })) {
    // Whether a review.result arrived is not in the context (approve leaves no trace): both are offered throughout.
    if (current) out.push({ type: 'review.result', ...ref, verdict: 'approve', reasons: [] }, { type: 'review.result', ...ref, verdict: 'reject', reasons: ['no'] }, ...stageEnd(true, []));
  } else if (s.matches({ exec: 'working' })) {
    for (const t of runningTasks) {
      out.push(finished(t.id, t.attempt, 'completed'), finished(t.id, t.attempt, 'failed'));
      if (p.interrupt && t.attempt === 1) out.push(finished(t.id, t.attempt, 'interrupted'));
    }
  } else if (s.matches('cancelling')) {
    for (const t of runningTasks) out.push(finished(t.id, t.attempt, 'interrupted'));
    if (current) out.push(finished(ref.task_id, ref.attempt, 'interrupted'));
  } else if (s.matches('stopped')) {
    out.push({ type: 'run.resumed', retry_interrupted: true });
    for (const t of Object.values(c.tasks)) if (t.status === 'interrupted') out.push({ type: 'task.retry', task_id: t.id, attempt: t.attempt + 1, reason: 'by hand' });
  } else {
    out.push({ type: 'handoff.written', stage: c.stage, path: 'h' });
  }
  return out;
}

// A key with what decides the machine's future: the state, counters, running attempts and task states.
// Terminal tasks and ended stage attempts keep only their status; a cancelling run keeps only what still runs.
export function keyOf(s: PipelineSnapshot): string {
  const c = s.context;
  const running = c.stageAttempt?.status === 'running' ? [c.stageAttempt.id, c.stageAttempt.attempt, c.stageAttempt.failures] : null;
  const tasks = c.order.map((id) => {
    const t = c.tasks[id]!;
    return t.status === 'completed' || t.status === 'failed' ? [id, t.status] : [id, t.status, t.attempt, t.failures, t.worker, t.failedOn ?? [], t.def.acceptance?.length ?? 0];
  });
  if (s.status === 'done') return JSON.stringify([s.value, c.reason]);
  if (s.matches('cancelling') || s.matches('cancelHandoff')) {
    return JSON.stringify([s.value, c.mode, running, tasks.filter((t) => t[1] === 'running')]);
  }
  return JSON.stringify([s.value, c.stage, c.iteration, c.loop, running, tasks, c.needsPrd, c.verdict, c.defects.map((d) => d.id), c.reviewReasons.length, c.workerFailures, c.retryInterrupted, c.gateResults.map((g) => g.exitCode), c.endingStage]);
}

// "exec.working" for { exec: 'working' }.
export function nameOf(value: unknown): string {
  if (typeof value === 'string') return value;
  const [key, child] = Object.entries(value as Record<string, unknown>)[0]!;
  return `${key}.${nameOf(child)}`;
}

// Ids of the state nodes with a transition into a final state, directly or through eventless states.
export function finalSources(): Set<string> {
  const nodes = getStateNodes(pipelineMachine.root);
  const leadsToFinal = (node: AnyStateNode, seen = new Set<AnyStateNode>()): boolean => {
    if (node.type === 'final') return true;
    if (seen.has(node)) return false;
    seen.add(node);
    return (node.always ?? []).some((t) => (t.target ?? []).some((target) => leadsToFinal(target, seen)));
  };
  const sources = new Set<string>();
  for (const node of [pipelineMachine.root, ...nodes]) {
    const transitions = [...node.transitions.values()].flat();
    if (transitions.some((t) => (t.target ?? []).some((target) => leadsToFinal(target)))) sources.add(node.id);
  }
  return sources;
}

// The ids of a snapshot's active state nodes, root first.
export function activeIds(s: PipelineSnapshot): string[] {
  const parts = nameOf(s.value).split('.');
  return ['pipeline', ...parts.map((_, i) => `pipeline.${parts.slice(0, i + 1).join('.')}`)];
}

export type { PipelineSnapshot };
export { pipelineMachine };

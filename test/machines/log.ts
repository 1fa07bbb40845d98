// Synthetic run logs for machine tests: the input events the runtime would have logged, shaped as
// log events (src/log/schema.ts), so that replayRun can fold them back through the machine.
import type { PipelineContext, PipelineEvent, PipelineInput } from '../../machines/types.js';
import type { TeamEvent } from '../../src/log/schema.js';

const RUN_ID = 'run-1';

// The run_started event a run with this input begins with.
export function startedEvent(input: PipelineInput): TeamEvent {
  return { event: 'run_started', at: 't0', run_id: RUN_ID, file: '0000-run_started.json', ...input, workerMode: 'headless', keepPanes: false } as TeamEvent;
}

// The log event that stands for a machine event; undefined for events the runtime never logs.
export function toLogEvent(event: PipelineEvent, context: PipelineContext, index: number): TeamEvent | undefined {
  const body = toBody(event, context);
  if (!body) return undefined;
  const { at, ...rest } = body;
  return { ...rest, at: typeof at === 'string' ? at : `t${index}`, run_id: RUN_ID, file: `${String(index).padStart(4, '0')}-${String(body.event)}.json` } as unknown as TeamEvent;
}

function toBody(event: PipelineEvent, context: PipelineContext): Record<string, unknown> | undefined {
  switch (event.type) {
    case 'task.finished': {
      const { type: _type, ...rest } = event;
      return { event: 'task_finished', ...rest, stage: stageOf(context, event.task_id), agent: context.defaultAgent, session: context.session, parent_session: context.parent_session, inputs: [], next: '' };
    }
    case 'plan.accepted':
      return { event: 'plan_accepted', task_id: event.task_id, attempt: event.attempt, tasks: event.tasks, needsPrd: event.needsPrd, ...(event.architectural !== undefined && { architectural: event.architectural }), ...(event.needsArchitect !== undefined && { needsArchitect: event.needsArchitect }) };
    case 'prd.accepted':
      return { event: 'prd_accepted', task_id: event.task_id, attempt: event.attempt, acceptance: event.acceptance };
    case 'verify.result':
      return { event: 'verify_result', task_id: event.task_id, attempt: event.attempt, verdict: event.verdict, defects: event.defects };
    case 'review.result':
      return { event: 'review_result', task_id: event.task_id, attempt: event.attempt, verdict: event.verdict, reasons: event.reasons };
    case 'gates.result':
      return { event: 'gates_result', iteration: context.iteration, pass: context.loop + 1, gates: event.gates };
    case 'architect.noted':
      return { event: 'architect_noted', task_id: event.task_id, attempt: event.attempt, notes: event.notes, risks: event.risks };
    case 'critic.objected':
      return { event: 'critic_objected', task_id: event.task_id, attempt: event.attempt, objections: event.objections, acceptance: event.acceptance };
    case 'explore.found':
      return { event: 'explore_found', task_id: event.task_id, attempt: event.attempt, findings: event.findings };
    case 'workers.scaled':
      return { event: 'team_scaled', key: `scale-${context.roster?.length ?? context.workers}-${event.workers}`, workers: event.workers, by: 'test' };
    case 'changes.scanned':
      return { event: 'changes_scanned', iteration: context.iteration, pass: context.loop + 1, files: event.files, security: event.security };
    case 'handoff.written':
      return { event: 'handoff_written', stage: event.stage, path: event.path, sha256: '0'.repeat(64) };
    case 'task.retry':
      return { event: 'task_retry', task_id: event.task_id, attempt: event.attempt, reason: event.reason };
    case 'run.resumed':
      return { event: 'run_resumed', pid: 4242, retry_interrupted: event.retry_interrupted };
    case 'cancel.requested':
      return { event: 'cancel_requested', by: 'test', force: event.force };
    case 'attempt.throttled': {
      const { type: _type, at, ...rest } = event;
      return { event: 'attempt_throttled', ...rest, at: new Date(at).toISOString() };
    }
    case 'backoff.ended':
      return { event: 'backoff_ended', agent: event.agent };
    case 'budget.exceeded':
      return { event: 'budget_exceeded', reason: event.reason, stop_running: event.stop_running, spent_usd: 1, spent_tokens: 0 };
    case 'budget.raised':
      return { event: 'budget_raised', usd: 2 };
    // The machine's events of these carry no task: the log's records name the attempt that met them.
    case 'attempt.retrying': {
      const { type: _type, at, ...rest } = event;
      return { event: 'attempt_retrying', task_id: 'any', attempt: 1, reason: 'HTTP 429', ...rest, at: new Date(at).toISOString() };
    }
    case 'quota.reached':
      return { event: 'quota_reached', task_id: 'any', attempt: 1, agent: event.agent, reason: event.reason, ...(event.resets !== undefined && { resets: event.resets }) };
    case 'quota.cleared':
      return { event: 'quota_cleared' };
    case 'runtime.resume':
      return undefined;
  }
}

function stageOf(context: PipelineContext, taskId: string): string {
  const task = context.tasks[taskId];
  if (task) return task.kind === 'fix' ? 'team-fix' : 'team-exec';
  return context.stageAttempt?.stage ?? context.stage;
}

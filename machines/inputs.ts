// The log's events the pipeline machine takes as inputs, in one table: each one's machine event
// type and the fields it carries over from the log's schema (src/log/schema.ts). The machine's input
// events (types.ts) and the runtime's mapping from a log event (toMachineEvent, which the event log
// and the replay both use) derive from it: a new input is a line here and its steps.
import type { EventName, EventOf, TeamEvent } from '../src/log/schema.js';
import { parseLogTime } from '../src/log/time.js';

interface InputSpec {
  /** The machine event's type. */
  type: string;
  /** The log event's fields it carries, as they are (an optional one only when present). */
  fields: readonly string[];
  /** It carries the log event's time, in ms (back-offs count from it, the same on every replay). */
  at?: true;
}

export const MACHINE_INPUTS = {
  task_finished: { type: 'task.finished', fields: ['task_id', 'attempt', 'status', 'evidence', 'artifacts', 'retryable'] },
  plan_accepted: { type: 'plan.accepted', fields: ['task_id', 'attempt', 'tasks', 'needsPrd', 'architectural', 'needsArchitect'] },
  prd_accepted: { type: 'prd.accepted', fields: ['task_id', 'attempt', 'acceptance'] },
  verify_result: { type: 'verify.result', fields: ['task_id', 'attempt', 'verdict', 'defects'] },
  review_result: { type: 'review.result', fields: ['task_id', 'attempt', 'verdict', 'reasons'] },
  gates_result: { type: 'gates.result', fields: ['gates'] },
  architect_noted: { type: 'architect.noted', fields: ['task_id', 'attempt', 'notes', 'risks'] },
  critic_objected: { type: 'critic.objected', fields: ['task_id', 'attempt', 'objections', 'acceptance'] },
  explore_found: { type: 'explore.found', fields: ['task_id', 'attempt', 'findings'] },
  team_scaled: { type: 'workers.scaled', fields: ['workers'] },
  changes_scanned: { type: 'changes.scanned', fields: ['files', 'security'] },
  handoff_written: { type: 'handoff.written', fields: ['stage', 'path'] },
  team_reserved: { type: 'files.reserved', fields: ['task_id', 'attempt', 'files'] },
  merge_failed: { type: 'merge.failed', fields: ['task_id', 'attempt', 'reason'] },
  task_retry: { type: 'task.retry', fields: ['task_id', 'attempt', 'reason'] },
  run_resumed: { type: 'run.resumed', fields: ['retry_interrupted'] },
  cancel_requested: { type: 'cancel.requested', fields: ['force'] },
  attempt_throttled: { type: 'attempt.throttled', fields: ['task_id', 'attempt', 'agent', 'reason', 'retry_after_ms', 'jitter'], at: true },
  attempt_retrying: { type: 'attempt.retrying', fields: ['agent', 'retry_after_ms', 'jitter'], at: true },
  backoff_ended: { type: 'backoff.ended', fields: ['agent'] },
  budget_exceeded: { type: 'budget.exceeded', fields: ['reason', 'stop_running', 'parts'] },
  budget_raised: { type: 'budget.raised', fields: [] },
  quota_reached: { type: 'quota.reached', fields: ['agent', 'reason', 'resets'] },
  quota_cleared: { type: 'quota.cleared', fields: [] },
} as const satisfies { [N in EventName]?: InputSpec & { fields: ReadonlyArray<keyof EventOf<N>> } };

type Inputs = typeof MACHINE_INPUTS;
export type InputName = keyof Inputs;

// The machine event of one input: its type, the fields carried, and the time in ms when it has one.
type InputEventOf<N extends InputName> = { type: Inputs[N]['type'] } & Pick<EventOf<N>, Inputs[N]['fields'][number] & keyof EventOf<N>> & (Inputs[N] extends { at: true } ? { at: number } : unknown);

// Every machine event a log event stands for.
export type LogInputEvent = { [N in InputName]: InputEventOf<N> }[InputName];

// The machine event an input event of the log stands for; undefined for records and facts the machine ignores.
export function toMachineEvent(event: TeamEvent): LogInputEvent | undefined {
  const spec: InputSpec | undefined = (MACHINE_INPUTS as Partial<Record<EventName, InputSpec>>)[event.event];
  if (!spec) return undefined;
  const fields = event as unknown as Record<string, unknown>;
  const carried: Record<string, unknown> = { type: spec.type };
  for (const field of spec.fields) if (fields[field] !== undefined) carried[field] = fields[field];
  if (spec.at) carried.at = parseLogTime(event.at);
  return carried as LogInputEvent;
}

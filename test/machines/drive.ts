// Drives the pure pipeline machine with transition(): no actor, no process, no I/O.
import { initialTransition, transition } from 'xstate';
import { pipelineMachine } from '../../machines/pipeline.js';
import type { PipelineEvent, PipelineInput, TaskDef } from '../../machines/types.js';
import type { NewEvent, TeamEvent } from '../../src/log/schema.js';
import { recordsOf, type PipelineSnapshot } from '../../src/session/replay.js';
import { startedEvent, toLogEvent } from './log.js';

export const LIMITS = { maxTasks: 50, maxFixLoops: 3, maxTaskAttempts: 2, maxIterations: 10, statusCheckMs: 300_000, reassignMs: 600_000, shutdownTimeoutMs: 15_000 };

export function makeInput(overrides: Partial<PipelineInput> = {}): PipelineInput {
  return { mode: 'team', task: 'demo', workers: 3, agentType: 'executor', limits: LIMITS, gates: [], agents: {}, defaultAgent: 'sim', session: '', parent_session: '', ...overrides };
}

// An actor the machine asked to start (an attempt, a handoff, the gates).
export interface Spawned {
  id: string;
  src: string;
  input: unknown;
}

// A machine under test, with every record it made and the attempts it started.
export class Driver {
  snapshot: PipelineSnapshot;
  records: NewEvent[] = [];
  spawned: Spawned[] = [];
  stopped: string[] = [];
  /** What the runtime would have logged: run_started, then input events and records, in order. */
  log: TeamEvent[];
  maxRunning = 0;

  constructor(input: PipelineInput = makeInput()) {
    const [snapshot, actions] = initialTransition(pipelineMachine, input);
    this.snapshot = snapshot;
    this.log = [startedEvent(input)];
    this.take(actions);
  }

  send(event: PipelineEvent): this {
    const logged = toLogEvent(event, this.context, this.log.length);
    if (logged) this.log.push(logged);
    const [snapshot, actions] = transition(pipelineMachine, this.snapshot, event);
    this.snapshot = snapshot;
    this.take(actions);
    return this;
  }

  // Records made since the record count `from` (e.g. `const mark = d.records.length`).
  since(from: number): NewEvent[] {
    return this.records.slice(from);
  }

  // Records of one kind, e.g. `d.recorded('task_started')`.
  recorded<N extends NewEvent['event']>(name: N): Array<Extract<NewEvent, { event: N }>> {
    return this.records.filter((r): r is Extract<NewEvent, { event: N }> => r.event === name);
  }

  get state(): string {
    return JSON.stringify(this.snapshot.value);
  }

  get context() {
    return this.snapshot.context;
  }

  running(): string[] {
    return Object.values(this.context.tasks).filter((t) => t.status === 'running').map((t) => t.id);
  }

  // Finishes the current single-agent stage attempt with its payload first.
  finishStage(status: 'completed' | 'failed' | 'interrupted' = 'completed', payload?: PipelineEvent): this {
    const current = this.context.stageAttempt!;
    if (payload) this.send(payload);
    return this.send({ type: 'task.finished', task_id: current.id, attempt: current.attempt, status, evidence: status, artifacts: [] });
  }

  plan(tasks: TaskDef[], needsPrd = false): this {
    const current = this.context.stageAttempt!;
    return this.finishStage('completed', { type: 'plan.accepted', task_id: current.id, attempt: current.attempt, tasks, needsPrd });
  }

  handoff(): this {
    return this.send({ type: 'handoff.written', stage: this.context.stage, path: `h/${this.context.handoffs.length + 1}` });
  }

  finishTask(id: string, status: 'completed' | 'failed' | 'interrupted' = 'completed'): this {
    return this.send({ type: 'task.finished', task_id: id, attempt: this.context.tasks[id]!.attempt, status, evidence: `${id} ${status}`, artifacts: [] });
  }

  // Completes running tasks until the exec pass is over.
  runExec(fail: Record<string, number> = {}): this {
    for (let guard = 0; guard < 1000 && this.running().length > 0; guard++) {
      const id = this.running()[0]!;
      const remaining = fail[id] ?? 0;
      if (remaining > 0) fail[id] = remaining - 1;
      this.finishTask(id, remaining > 0 ? 'failed' : 'completed');
    }
    return this;
  }

  verify(verdict: 'pass' | 'fail', defects = verdict === 'fail' ? [{ id: 'd1', description: 'broken' }] : []): this {
    const current = this.context.stageAttempt!;
    return this.finishStage('completed', { type: 'verify.result', task_id: current.id, attempt: current.attempt, verdict, defects });
  }

  review(verdict: 'approve' | 'reject', reasons: string[] = verdict === 'reject' ? ['not good enough'] : []): this {
    const current = this.context.stageAttempt!;
    return this.finishStage('completed', { type: 'review.result', task_id: current.id, attempt: current.attempt, verdict, reasons });
  }

  private take(actions: ReadonlyArray<{ type: string; params?: unknown }>): void {
    const records = recordsOf(actions);
    this.records.push(...records);
    for (const record of records) this.log.push(stamp(record, this.log.length));
    for (const action of actions) {
      const params = action.params as { id?: string; src?: string; input?: unknown } | undefined;
      if (action.type === 'xstate.spawnChild') this.spawned.push({ id: params!.id!, src: String(params!.src), input: params!.input });
      // A stop whose child is already gone resolves to no actor (xstate keeps the action, with no params).
      if (action.type === 'xstate.stopChild' && params?.id) this.stopped.push(params.id);
    }
    this.maxRunning = Math.max(this.maxRunning, this.running().length);
  }
}

// A record as the store would have appended it.
function stamp(record: NewEvent, index: number): TeamEvent {
  return { ...record, at: `t${index}`, run_id: 'run-1', file: `${String(index).padStart(4, '0')}-${record.event}.json` } as unknown as TeamEvent;
}

export const DIAMOND: TaskDef[] = [
  { id: 'a', title: 'A', description: 'a', acceptance: ['ok'] },
  { id: 'b', title: 'B', description: 'b', blockedBy: ['a'], acceptance: ['ok'] },
  { id: 'c', title: 'C', description: 'c', blockedBy: ['a'], acceptance: ['ok'] },
  { id: 'd', title: 'D', description: 'd', blockedBy: ['a'], acceptance: ['ok'] },
  { id: 'e', title: 'E', description: 'e', blockedBy: ['b', 'c', 'd'], acceptance: ['ok'] },
  { id: 'f', title: 'F', description: 'f', blockedBy: ['e'], acceptance: ['ok'] },
];

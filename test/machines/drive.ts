// Drives the pure pipeline machine with transition(): no actor, no process, no I/O.
import { initialTransition, transition } from 'xstate';
import { pipelineMachine } from '../../machines/pipeline.js';
import type { PipelineEvent, PipelineInput, TaskDef } from '../../machines/types.js';
import type { NewEvent } from '../../src/checkpoint/events.js';
import { recordsOf, type PipelineSnapshot } from '../../src/runtime/replay.js';

export const LIMITS = { maxTasks: 50, maxFixLoops: 3, maxTaskAttempts: 2, maxIterations: 10, statusCheckMs: 300_000, reassignMs: 600_000, shutdownTimeoutMs: 15_000 };

export function makeInput(overrides: Partial<PipelineInput> = {}): PipelineInput {
  return { mode: 'team', task: 'demo', workers: 3, agentType: 'executor', limits: LIMITS, gates: [], agents: {}, defaultAgent: 'sim', session: '', parent_session: '', ...overrides };
}

// A machine under test, with every record it made and the attempts it started.
export class Driver {
  snapshot: PipelineSnapshot;
  records: NewEvent[] = [];
  maxRunning = 0;

  constructor(input: PipelineInput = makeInput()) {
    const [snapshot, actions] = initialTransition(pipelineMachine, input);
    this.snapshot = snapshot;
    this.take(actions);
  }

  send(event: PipelineEvent): this {
    const [snapshot, actions] = transition(pipelineMachine, this.snapshot, event);
    this.snapshot = snapshot;
    this.take(actions);
    return this;
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
    this.records.push(...recordsOf(actions));
    this.maxRunning = Math.max(this.maxRunning, this.running().length);
  }
}

export const DIAMOND: TaskDef[] = [
  { id: 'a', title: 'A', description: 'a', acceptance: ['ok'] },
  { id: 'b', title: 'B', description: 'b', blockedBy: ['a'], acceptance: ['ok'] },
  { id: 'c', title: 'C', description: 'c', blockedBy: ['a'], acceptance: ['ok'] },
  { id: 'd', title: 'D', description: 'd', blockedBy: ['a'], acceptance: ['ok'] },
  { id: 'e', title: 'E', description: 'e', blockedBy: ['b', 'c', 'd'], acceptance: ['ok'] },
  { id: 'f', title: 'F', description: 'f', blockedBy: ['e'], acceptance: ['ok'] },
];

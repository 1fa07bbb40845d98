// Building blocks for pipeline contexts made by hand: a run's context, its tasks, a handoff input.
import { makeInitialContext } from '../../machines/context.js';
import type { HandoffInput, PipelineContext, TaskDef, TaskState } from '../../machines/types.js';

export const LIMITS = { maxTasks: 50, maxFixLoops: 3, maxTaskAttempts: 2, maxIterations: 10, statusCheckMs: 300_000, reassignMs: 600_000, shutdownTimeoutMs: 15_000 };

// A context at the start of a run: nothing planned yet.
export function makeContext(overrides: Partial<PipelineContext> = {}): PipelineContext {
  const input = {
    mode: 'team' as const,
    task: 'add input validation to the API',
    workers: 3,
    agentType: 'executor',
    limits: LIMITS,
    gates: ['npm test', 'npm run lint'],
    agents: {},
    defaultAgent: 'sim',
    session: 's-1',
    parent_session: '',
  };
  return { ...makeInitialContext(input), ...overrides };
}

// A task of the graph; pending on worker-1 unless told otherwise.
export function makeTask(def: TaskDef, overrides: Partial<TaskState> = {}): TaskState {
  return { id: def.id, def, kind: 'exec', role: 'executor', worker: 'worker-1', status: 'pending', attempt: 0, failures: 0, failedOn: [], evidence: '', artifacts: [], pass: 0, ...overrides };
}

// The context with these tasks in the graph, in this order.
export function withTasks(context: PipelineContext, tasks: TaskState[]): PipelineContext {
  return { ...context, tasks: Object.fromEntries(tasks.map((t) => [t.id, t])), order: tasks.map((t) => t.id) };
}

// A handoff input as the machine builds it: the index follows the handoffs so far.
export function makeInput(stage: HandoffInput['stage'], next: string, context: PipelineContext): HandoffInput {
  return { stage, next, index: context.handoffs.length + 1, context };
}

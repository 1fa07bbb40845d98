// Pure task-graph scheduling: which pending tasks start now, on which worker. It reads the task
// index (counts, running ids, a cursor past the tasks that are not pending) rather than every task.
import { agentOf, modelOf } from './routing.js';
import { sharedClaim } from './ownership.js';
import { rosterOf } from './scale.js';
import { TaskDraft, type TaskIndex } from './task-index.js';
import type { AttemptInput, NewEvent, PipelineContext, TaskState } from './types.js';
import { laneFree } from './throttle.js';

// A worker that failed this many attempts gets no more work.
export const WORKER_FAILURE_LIMIT = 2;

export interface ScheduleResult {
  /** The new task map and index; empty when nothing changed. */
  changes: { tasks?: Record<string, TaskState>; taskIndex?: TaskIndex };
  records: NewEvent[];
  starts: AttemptInput[];
}

export function workerNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `worker-${i + 1}`);
}

// The agent a role runs on.
export function agentFor(context: Pick<PipelineContext, 'agents' | 'defaultAgent' | 'agentType'>, role: string): string {
  return agentOf(context, role);
}

// How far past the scan cursor an idle worker looks for a ready task planned for it (own-first):
// a plan's tasks go round the workers, so each one's next task is near, and a step's scan stays short
// however long the plan. Past the window it takes the next ready task, as plan-order does.
const OWN_TASK_WINDOW_PER_WORKER = 4;

// Fails tasks that can never run, then starts ready tasks on idle workers: under own-first, first
// those planned for an idle worker (within the window), then, for the workers still idle, the next
// ready tasks in plan order, each moved to such a worker (task_assigned) when its own is busy. A
// task whose files overlap a running task's waits for it (ownership.ts).
export function schedule(context: PipelineContext): ScheduleResult {
  const draft = new TaskDraft(context);
  const records: NewEvent[] = [];
  const starts: AttemptInput[] = [];
  // A spent budget starts nothing (issue 29).
  if (draft.index.counts.pending === 0 || context.budgetHold) return { changes: {}, records, starts };
  const available = availableWorkers(context);
  // Only a task that became pending or failed, or the last worker spent, can make a task unrunnable.
  const recheck = draft.index.recheck || available.length === 0;
  if (recheck) failUnrunnable(context, draft, available.length, records);
  const busy = new Set(draft.index.running.map((id) => draft.tasks[id]!.worker));
  const allBusy = () => available.every((w) => busy.has(w));
  // Attempts running per agent, against its lanes (a rate-limited agent runs fewer at once).
  const runningOf: Record<string, number> = {};
  for (const id of draft.index.running) {
    const agent = agentFor(context, draft.tasks[id]!.role);
    runningOf[agent] = (runningOf[agent] ?? 0) + 1;
  }
  // The files each running task claims in the plan or reserved since (ownership.ts): a task whose files overlap them waits.
  // A select task edits no file (it merges the candidate it picks); a task's candidates claim its files alike and each works in a worktree of its own.
  const claimed = draft.index.running.flatMap((id) => {
    const task = draft.tasks[id]!;
    const files = task.kind === 'select' ? [] : [...(task.def.files ?? []), ...(task.reserved ?? [])];
    return files.length > 0 ? [{ files, of: task.def.candidateOf }] : [];
  });
  const mayStart = (current: TaskState) => {
    const agent = agentFor(context, current.role);
    if (!laneFree(context, agent, runningOf[agent] ?? 0)) return false;
    if (current.kind === 'select' || !current.def.files?.length) return true;
    const sibling = (of: string | undefined) => of !== undefined && of === current.def.candidateOf;
    return claimed.every(({ files, of }) => sibling(of) || sharedClaim(current.def.files, files) === undefined);
  };
  const start = (id: string, current: TaskState, worker: string) => {
    const agent = agentFor(context, current.role);
    runningOf[agent] = (runningOf[agent] ?? 0) + 1;
    if (current.def.files?.length && current.kind !== 'select') claimed.push({ files: current.def.files, of: current.def.candidateOf });
    if (worker !== current.worker) records.push({ event: 'task_assigned', task_id: id, worker });
    const task: TaskState = { ...current, worker, status: 'running', attempt: current.attempt + 1 };
    draft.put(task);
    busy.add(worker);
    records.push(taskStartedRecord(context, id, task.attempt, stageOf(task), task.role, task.agent));
    starts.push(makeExecAttemptInput(context, draft.tasks, task));
  };
  // The worker a ready task starts on: its own when idle (and fresh, if any idle worker is), else
  // the first idle worker that has not failed it, else the first idle one.
  const workerFor = (current: TaskState) => {
    const idle = available.filter((w) => !busy.has(w));
    const fresh = idle.filter((w) => !current.failedOn.includes(w));
    const choices = fresh.length > 0 ? fresh : idle;
    return choices.includes(current.worker) ? current.worker : choices[0]!;
  };
  if (context.schedule === 'own-first') {
    const end = Math.min(context.order.length, draft.index.cursor + OWN_TASK_WINDOW_PER_WORKER * context.workers);
    for (let i = draft.index.cursor; i < end && !allBusy(); i++) {
      const id = context.order[i]!;
      const current = draft.tasks[id]!;
      if (current.status !== 'pending' || busy.has(current.worker) || !isReady(current, draft.tasks) || !mayStart(current)) continue;
      if (workerFor(current) === current.worker) start(id, current, current.worker);
    }
  }
  let cursor = draft.index.cursor;
  let contiguous = true;
  for (let i = cursor; i < context.order.length; i++) {
    if (allBusy()) break;
    const id = context.order[i]!;
    const current = draft.tasks[id]!;
    if (current.status !== 'pending') {
      if (contiguous) cursor = i + 1;
      continue;
    }
    if (!isReady(current, draft.tasks) || !mayStart(current)) {
      contiguous = false;
      continue;
    }
    if (contiguous) cursor = i + 1;
    start(id, current, workerFor(current));
  }
  draft.scanned(cursor, recheck);
  return { changes: draft.changes, records, starts };
}

// Workers that may still take work: each failed fewer than WORKER_FAILURE_LIMIT tasks.
export function availableWorkers(context: Pick<PipelineContext, 'workers' | 'workerFailures' | 'roster' | 'planWidth'>): string[] {
  return rosterOf(context).slice(0, context.planWidth ?? Infinity).filter((w) => (context.workerFailures[w] ?? 0) < WORKER_FAILURE_LIMIT);
}

// Every worker is spent while work of this pass is left undone: no later pass can do better.
export function noWorkerLeft(context: PipelineContext): boolean {
  if (availableWorkers(context).length > 0) return false;
  return Object.values(context.tasks).some((t) => t.pass === context.loop && t.status !== 'completed');
}

// Fix tasks run as team-fix attempts; planned tasks as team-exec attempts; a select task judges
// as a verify attempt does (in the integration worktree, with verify's permission).
export function stageOf(task: TaskState): 'team-exec' | 'team-fix' | 'team-verify' {
  return task.kind === 'fix' ? 'team-fix' : task.kind === 'select' ? 'team-verify' : 'team-exec';
}

// What the runtime needs to run the task's current attempt.
export function makeExecAttemptInput(context: PipelineContext, tasks: Record<string, TaskState>, task: TaskState): AttemptInput {
  const agent = task.agent ?? agentFor(context, task.role);
  const model = modelOf(context, task.role, agent);
  return {
    taskId: task.id,
    attempt: task.attempt,
    stage: stageOf(task),
    role: task.role,
    agent,
    ...(model !== undefined && { model }),
    worker: task.worker,
    def: task.def,
    dependencies: (task.def.blockedBy ?? []).flatMap((dep) => {
      const d = tasks[dep];
      return d ? [{ id: d.id, title: d.def.title, evidence: d.evidence, artifacts: d.artifacts }] : [];
    }),
    defects: task.kind === 'fix' ? context.defects : [],
    handoffs: context.handoffs,
    runTask: context.task,
    // Exec and fix prompts do not list the graph: a start costs the same with 10 tasks or 10,000.
    tasks: [],
    iteration: context.iteration,
    loop: context.loop,
    ...(task.candidates && { candidates: task.candidates }),
  };
}

// The task_started record, in the seed's exact shape.
export function taskStartedRecord(context: PipelineContext, taskId: string, attempt: number, stage: string, role: string, agent?: string): NewEvent {
  return {
    event: 'task_started',
    task_id: taskId,
    stage,
    agent: agent ?? agentFor(context, role),
    attempt,
    status: 'running',
    session: context.session,
    parent_session: context.parent_session,
    inputs: context.handoffs.map((h) => h.path),
    artifacts: [],
    evidence: '',
    next: '',
  };
}

// Its blockedBy tasks completed; a select task's candidates all ended, one of them completed.
function isReady(task: TaskState, tasks: Record<string, TaskState>): boolean {
  if (task.candidates) return task.candidates.every((c) => ended(tasks[c])) && task.candidates.some((c) => tasks[c]?.status === 'completed');
  return (task.def.blockedBy ?? []).every((dep) => tasks[dep]?.status === 'completed');
}

function ended(task: TaskState | undefined): boolean {
  return task?.status === 'completed' || task?.status === 'failed';
}

// Why a select task can never run: every one of its candidates failed.
function candidatesFailed(task: TaskState, tasks: Record<string, TaskState>): string | undefined {
  if (!task.candidates || !task.candidates.every((c) => tasks[c]?.status === 'failed')) return undefined;
  return `every candidate failed: ${task.candidates.map((c) => `${c} (${tasks[c]!.evidence.slice(0, 120)})`).join('; ')}`;
}

// A pending task blocked by a failed task, or with no worker left, fails with that reason.
function failUnrunnable(context: PipelineContext, draft: TaskDraft, workersLeft: number, records: NewEvent[]): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const id of context.order) {
      const task = draft.tasks[id]!;
      if (task.status !== 'pending') continue;
      const failedDep = (task.def.blockedBy ?? []).find((dep) => draft.tasks[dep]?.status === 'failed');
      const blocked = task.candidates ? candidatesFailed(task, draft.tasks) : failedDep ? `blocked by failed task ${failedDep}` : undefined;
      const reason = blocked ?? (workersLeft === 0 ? `no worker left: every worker failed ${WORKER_FAILURE_LIMIT} tasks` : undefined);
      if (!reason) continue;
      draft.put({ ...task, status: 'failed', evidence: reason });
      records.push({ event: 'task_blocked', task_id: id, reason });
      changed = true;
    }
  }
}

// Workers assigned round-robin in plan order, before any dispatch.
export function assignWorkers(ids: string[], workers: number | string[], offset = 0): Record<string, string> {
  const names = typeof workers === 'number' ? workerNames(workers) : workers;
  return Object.fromEntries(ids.map((id, i) => [id, names[(i + offset) % names.length]!]));
}

// The pipeline's pure steps: each takes the context (and event) and says what changes,
// which records to write and which attempts to start or stop. No I/O.
import { planWidth } from './ownership.js';
import { candidateId, makeFixTasks, namespacePlan, prefixFor } from './plan.js';
import { rosterOf } from './scale.js';
import { agentOf, fixerOf, modelOf, recordDecisions, routeRole, routeTask } from './routing.js';
import { assignWorkers, makeExecAttemptInput, schedule, taskStartedRecord } from './schedule.js';
import { emptyTaskIndex, indexTasks, TaskDraft } from './task-index.js';
import type { AttemptInput, NewEvent, PipelineContext, PipelineEvent, RoutingDecision, Stage, TaskDef, TaskState } from './types.js';

export interface Step {
  context?: Partial<PipelineContext>;
  records?: NewEvent[];
  spawn?: AttemptInput[];
  stop?: string[];
}

type EventOf<T extends PipelineEvent['type']> = Extract<PipelineEvent, { type: T }>;

// The role and task id of each single-agent stage.
const STAGE_AGENTS: Partial<Record<Stage, { role: string; name: (loop: number) => string }>> = {
  'team-plan': { role: 'planner', name: () => 'plan' },
  'team-prd': { role: 'analyst', name: () => 'prd' },
  'team-verify': { role: 'verifier', name: (loop) => `verify-${loop + 1}` },
  'ralph-review': { role: 'architect', name: (loop) => `review-${loop + 1}` },
};

// The explore agent that reads the codebase before the planner (stage routing).
const EXPLORE = { role: 'explore', name: () => 'explore' };

// Starts the explore agent when routing asks for one; nothing otherwise (the planner starts at once).
export function startExplore(context: PipelineContext): Step {
  if (!context.routing?.explore) return {};
  const step = startStageAttempt(context, 'team-plan', undefined, EXPLORE);
  return { ...step, context: { ...step.context, findings: null } };
}

// The explore agent failed every attempt: the planner plans without its findings, and the log says so.
export function noteExploreFailed(context: PipelineContext): Step {
  const agent = agentOf(context, 'explore');
  return recordDecisions(context, 'team-plan', [{ role: 'explore', agent, why: 'failed: the planner plans without its findings' }]);
}

// The architect that reviews a plan's boundaries (stage routing), in team-plan.
const PLAN_ARCHITECT = { role: 'architect', name: () => 'architect' };

// True when the plan's architect runs: the config says always, or on request and the planner asked.
export function wantsPlanArchitect(context: PipelineContext): boolean {
  const policy = context.routing?.architect;
  return policy === 'always' || (policy === 'on-request' && context.architectAsked);
}

// Starts the plan's architect when it is wanted (recorded with why); nothing otherwise.
export function startPlanArchitect(context: PipelineContext): Step {
  if (!wantsPlanArchitect(context)) return {};
  const why = context.routing?.architect === 'always' ? 'added: the config asks for one on every plan' : 'added: the planner asked for one (needsArchitect)';
  const decided = recordDecisions(context, 'team-plan', [{ role: 'architect', agent: agentOf(context, 'architect'), why }]);
  const step = startStageAttempt(context, 'team-plan', undefined, PLAN_ARCHITECT);
  return { ...step, context: { ...step.context, ...decided.context, architectNotes: { notes: [], risks: [] } }, records: [...decided.records, ...step.records!] };
}

// The critic that challenges the PRD's scope after the analyst (stage routing).
const CRITIC = { role: 'critic', name: () => 'critic' };

// Starts the critic when routing asks for one; nothing otherwise (the PRD's handoff follows).
export function startCritic(context: PipelineContext): Step {
  if (!context.routing?.critic) return {};
  const step = startStageAttempt(context, 'team-prd', undefined, CRITIC);
  return { ...step, context: { ...step.context, objections: [] } };
}

// The critic's objections are kept for the handoff; the criteria it adds join the tasks'.
export function acceptObjections(context: PipelineContext, event: EventOf<'critic.objected'>): Step {
  const prefix = prefixFor(context.iteration);
  const tasks = { ...context.tasks };
  for (const [rawId, criteria] of Object.entries(event.acceptance)) {
    const id = rawId in tasks ? rawId : prefix + rawId;
    const task = tasks[id];
    if (task && criteria.length > 0) tasks[id] = { ...task, def: { ...task.def, acceptance: [...(task.def.acceptance ?? []), ...criteria] } };
  }
  return { context: { tasks, objections: event.objections } };
}

// The critic failed every attempt: the PRD stands as the analyst wrote it, and the log says so.
export function noteCriticFailed(context: PipelineContext): Step {
  return recordDecisions(context, 'team-prd', [{ role: 'critic', agent: agentOf(context, 'critic'), why: 'failed: the PRD stands as the analyst wrote it' }]);
}

// The id of the spawned child that runs one attempt; stopping it aborts the attempt.
export function attemptActorId(taskId: string, attempt: number): string {
  return `attempt:${taskId}:a${attempt}`;
}

export function enterStage(context: PipelineContext, stage: Stage): Step {
  return { context: { stage }, records: [{ event: 'stage_entered', stage, iteration: context.iteration, loop: context.loop }] };
}

export function completeStage(context: PipelineContext, stage: Stage): Step {
  return { records: [{ event: 'stage_completed', stage, iteration: context.iteration, loop: context.loop }] };
}

// Starts the stage's agent as attempt 1 (or the next attempt after a failure or interruption).
export function startStageAttempt(context: PipelineContext, stage: Stage, previous?: { attempt: number; failures: number }, who?: { role: string; name: (loop: number) => string }): Step {
  const agent = who ?? STAGE_AGENTS[stage]!;
  const id = prefixFor(context.iteration) + agent.name(context.loop);
  const attempt = (previous?.attempt ?? 0) + 1;
  return {
    context: { stageAttempt: { id, stage, role: agent.role, attempt, failures: previous?.failures ?? 0, status: 'running', evidence: '' }, stageEarlier: earlierOf(context, stage, agent.role) },
    records: [taskStartedRecord(context, id, attempt, stage, agent.role)],
    spawn: [stageAttemptInput(context, id, attempt, stage, agent.role)],
  };
}

// The attempts of `stage` that ended before one of `role` starts: the current one joins them when
// another role takes over the stage; a retry keeps them; another stage starts none.
function earlierOf(context: PipelineContext, stage: Stage, role: string): PipelineContext['stageEarlier'] {
  const current = context.stageAttempt;
  if (current?.stage !== stage) return [];
  const earlier = context.stageEarlier.filter((a) => a.stage === stage && a.role !== current.role);
  return current.role === role ? earlier : [...earlier, current];
}

// What the runtime needs to run a single-agent stage's attempt (or a reviewer's, in its own lane).
export function stageAttemptInput(context: PipelineContext, taskId: string, attempt: number, stage: Stage, role: string, worker = 'lead'): AttemptInput {
  const agent = agentOf(context, role);
  const model = modelOf(context, role, agent);
  return {
    taskId,
    attempt,
    stage,
    role,
    agent,
    ...(model !== undefined && { model }),
    ...(role === 'planner' && context.findings !== null && { findings: context.findings }),
    worker,
    dependencies: [],
    defects: context.defects,
    handoffs: context.handoffs,
    runTask: context.task,
    tasks: context.order.map((id) => context.tasks[id]!.def),
    iteration: context.iteration,
    loop: context.loop,
  };
}

// A current attempt failed in a way no retry can fix: the run stops at it.
export function isFatalFinish(context: PipelineContext, event: EventOf<'task.finished'>): boolean {
  if (event.status !== 'failed' || event.retryable !== false) return false;
  const task = context.tasks[event.task_id];
  return isCurrentStageAttempt(context, event) || (task !== undefined && task.status === 'running' && task.attempt === event.attempt);
}

// True when a finish event is about the stage's current attempt (stale attempts are fenced off).
export function isCurrentStageAttempt(context: PipelineContext, event: EventOf<'task.finished'>): boolean {
  const current = context.stageAttempt;
  return current !== null && current.status === 'running' && current.id === event.task_id && current.attempt === event.attempt;
}

// What a finished stage attempt leads to: done, another attempt, or the end of the run.
export function stageAttemptOutcome(context: PipelineContext, event: EventOf<'task.finished'>): 'completed' | 'retry' | 'exhausted' {
  if (event.status === 'completed') return 'completed';
  if (event.status !== 'failed') return 'retry';
  return (context.stageAttempt?.failures ?? 0) + 1 < context.limits.maxTaskAttempts ? 'retry' : 'exhausted';
}

export function finishStageAttempt(context: PipelineContext, event: EventOf<'task.finished'>): Step {
  const current = context.stageAttempt!;
  const failed = event.status === 'failed';
  return {
    context: { stageAttempt: { ...current, status: failed ? 'failed' : (event.status as 'completed'), failures: current.failures + (failed ? 1 : 0), evidence: event.evidence } },
    stop: [attemptActorId(current.id, current.attempt)],
  };
}

export function retryStageAttempt(context: PipelineContext, event: EventOf<'task.finished'>): Step {
  const current = context.stageAttempt!;
  const next = startStageAttempt(context, current.stage, { attempt: current.attempt, failures: current.failures + (event.status === 'failed' ? 1 : 0) }, current.role === EXPLORE.role ? EXPLORE : current.role === CRITIC.role ? CRITIC : current.role === PLAN_ARCHITECT.role && current.stage === 'team-plan' ? PLAN_ARCHITECT : undefined);
  return { ...next, stop: [attemptActorId(current.id, current.attempt)] };
}

// Re-runs the effect of every attempt the log says is running (after a restart); no records.
// An attempt whose worker was never launched starts afresh; the others are reconciled.
export function respawnRunning(context: PipelineContext, event: EventOf<'runtime.resume'>): Step {
  const spawn: AttemptInput[] = [];
  const current = context.stageAttempt;
  if (current?.status === 'running') spawn.push(stageAttemptInput(context, current.id, current.attempt, current.stage, current.role));
  for (const reviewer of context.reviewers) {
    if (reviewer.status === 'running') spawn.push(stageAttemptInput(context, reviewer.id, reviewer.attempt, reviewer.stage, reviewer.role, reviewer.role));
  }
  for (const id of context.order) {
    const task = context.tasks[id]!;
    if (task.status === 'running') spawn.push(makeExecAttemptInput(context, context.tasks, task));
  }
  const unlaunched = (input: AttemptInput) => event.unlaunched.some((u) => u.task_id === input.taskId && u.attempt === input.attempt);
  return { spawn: spawn.map((input) => (unlaunched(input) ? input : { ...input, resumed: true })) };
}

// A valid plan arrives: tasks enter the graph, pre-assigned to workers. A task asked for the best
// of N becomes its candidates and the select task that waits for them (expandBestOf).
export function acceptPlan(context: PipelineContext, event: EventOf<'plan.accepted'>): Step {
  const planned = namespacePlan(event.tasks, context.iteration);
  const best = expandBestOf(context, planned);
  const defs = best.defs;
  // As many workers as the plan is wide: the rest would never have work at once.
  const roster = rosterOf(context);
  const width = planWidth(defs.map((d) => (best.selects.has(d.id) ? { id: d.id, blockedBy: best.selects.get(d.id)! } : d)), roster.length);
  const active = roster.slice(0, Math.min(roster.length, width));
  const workers = assignWorkers(defs.map((d) => d.id), active);
  const tasks: Record<string, TaskState> = {};
  const decisions = [...best.decisions];
  for (const def of defs) {
    const candidates = best.selects.get(def.id);
    if (candidates) {
      tasks[def.id] = { id: def.id, def, kind: 'select', role: SELECTOR, worker: workers[def.id]!, status: 'pending', attempt: 0, failures: 0, failedOn: [], evidence: '', artifacts: [], pass: 0, candidates };
      continue;
    }
    const route = routeTask(context, def);
    tasks[def.id] = { id: def.id, def, kind: 'exec', role: route.role, ...(route.agent !== undefined && { agent: route.agent }), worker: workers[def.id]!, status: 'pending', attempt: 0, failures: 0, failedOn: [], evidence: '', artifacts: [], pass: 0 };
    if (route.why && def.candidateOf === undefined) decisions.push({ task_id: def.id, role: route.role, agent: route.agent ?? agentOf(context, route.role), why: route.why });
  }
  const needsPrd = event.needsPrd || planned.some((d) => !d.acceptance || d.acceptance.length === 0) || context.routing?.analyst === 'always';
  const decided = recordDecisions(context, 'team-plan', decisions);
  return {
    context: { tasks, taskIndex: indexTasks(tasks), order: defs.map((d) => d.id), needsPrd, planWidth: active.length < roster.length ? active.length : undefined, ...(event.architectural === true && { architectural: true }), ...(context.routing && { architectAsked: event.needsArchitect === true }), ...decided.context },
    records: [...(active.length < roster.length ? [{ event: 'workers_sized' as const, asked: roster.length, width, workers: active }] : []), ...assigned(defs, workers), ...decided.records],
  };
}

// The role that picks among a task's candidates.
export const SELECTOR = 'selector';

// The best of N (issue 38): each planned task asked for K > 1 candidates (its bestOf, else the
// run's) is replaced by K candidate tasks `<task>--c<k>` (the task's own def, each on the next of its
// `agents`, on a branch of its own) followed by the task itself, which becomes the select task: it
// starts once every candidate ended, and its attempt picks one and merges it. Without worktrees
// the candidates would share one folder: the task runs alone, and the log says why.
function expandBestOf(context: PipelineContext, planned: TaskDef[]): { defs: TaskDef[]; selects: Map<string, string[]>; decisions: RoutingDecision[] } {
  const defs: TaskDef[] = [];
  const selects = new Map<string, string[]>();
  const decisions: RoutingDecision[] = [];
  for (const def of planned) {
    const k = def.bestOf ?? context.bestOf ?? 1;
    if (k < 2) {
      defs.push(def);
      continue;
    }
    if (context.workBranch === undefined) {
      decisions.push({ task_id: def.id, role: def.role ?? context.agentType, agent: def.agent ?? agentOf(context, def.role ?? context.agentType), why: `runs once, not as the best of ${k}: candidates need worktrees (a git repository with a commit, and 2 or more workers)` });
      defs.push(def);
      continue;
    }
    const { bestOf: _k, agents, ...base } = def;
    const ids: string[] = [];
    for (let i = 1; i <= k; i++) {
      const id = candidateId(def.id, i);
      const agent = agents?.[(i - 1) % agents.length] ?? def.agent;
      defs.push({ ...base, id, title: `${def.title} (candidate ${i} of ${k})`, candidateOf: def.id, ...(agent !== undefined && { agent }) });
      ids.push(id);
      const role = def.role ?? context.agentType;
      const known = agent === undefined || context.routing === undefined || context.routing.known.includes(agent);
      decisions.push({ task_id: id, role, agent: known && agent !== undefined ? agent : agentOf(context, role), why: known ? `candidate ${i} of ${k} of ${def.id}` : `candidate ${i} of ${k} of ${def.id}: ${agent} is not configured, its role's agent takes it` });
    }
    defs.push(def);
    selects.set(def.id, ids);
    decisions.push({ task_id: def.id, role: SELECTOR, agent: agentOf(context, SELECTOR), why: `picks the best of ${k} candidates of ${def.id} once they ended, and merges it` });
  }
  return { defs, selects, decisions };
}

// The record of the tasks a step adds, each with its worker: one event for them all, written before
// any of them starts (a plan of 200 tasks is one file and one fsync, not 200). None for no task.
function assigned(defs: TaskDef[], workers: Record<string, string>): NewEvent[] {
  if (defs.length === 0) return [];
  return [{ event: 'tasks_assigned', tasks: defs.map((d) => ({ task_id: d.id, worker: workers[d.id]!, task: d })) }];
}

// Acceptance criteria from the analyst, merged into the tasks.
export function acceptPrd(context: PipelineContext, event: EventOf<'prd.accepted'>): Step {
  const prefix = prefixFor(context.iteration);
  const tasks = { ...context.tasks };
  for (const [rawId, criteria] of Object.entries(event.acceptance)) {
    const id = rawId in tasks ? rawId : prefix + rawId;
    const task = tasks[id];
    if (task && criteria.length > 0) tasks[id] = { ...task, def: { ...task.def, acceptance: criteria } };
  }
  return { context: { tasks } };
}

export function skipPrd(context: PipelineContext): Step {
  return { records: [{ event: 'stage_skipped', stage: 'team-prd', iteration: context.iteration, reason: 'the plan does not ask for a PRD and every task has acceptance criteria' }] };
}

// Starts what can start in the task graph.
export function dispatch(context: PipelineContext): Step {
  const result = schedule(context);
  return { context: result.changes, records: result.records, spawn: result.starts };
}

// An exec or fix attempt ended: the task completes, fails, waits for a retry or a decision.
export function finishTask(context: PipelineContext, event: EventOf<'task.finished'>): Step {
  const task = context.tasks[event.task_id];
  if (!task || task.status !== 'running' || task.attempt !== event.attempt) return {};
  // What the attempt reserved is held only while it runs.
  const { reserved: _released, ...rest } = task;
  const next: TaskState = { ...rest, evidence: event.evidence, artifacts: event.artifacts };
  const workerFailures = { ...context.workerFailures };
  if (event.status === 'completed') next.status = 'completed';
  else if (event.status === 'failed') {
    next.failures += 1;
    // "A worker that failed 2 tasks": a second failed attempt of one task on it counts once.
    if (!task.failedOn.includes(task.worker)) workerFailures[task.worker] = (workerFailures[task.worker] ?? 0) + 1;
    next.failedOn = [...task.failedOn, task.worker];
    next.status = next.failures < context.limits.maxTaskAttempts && event.retryable !== false && !task.mergeFailed ? 'pending' : 'failed';
  } else next.status = context.retryInterrupted ? 'pending' : 'interrupted';
  const draft = new TaskDraft(context);
  draft.put(next);
  // The attempt's effect has reported: its child actor is done (a replay's inert children never end on their own).
  return { context: { ...draft.changes, workerFailures }, stop: [attemptActorId(task.id, task.attempt)] };
}

// A running task's branch could not be merged: its attempt's failure will not be retried.
export function noteMergeFailure(context: PipelineContext, event: EventOf<'merge.failed'>): Step {
  const task = context.tasks[event.task_id];
  if (!task || task.status !== 'running' || task.attempt !== event.attempt) return {};
  const draft = new TaskDraft(context);
  draft.put({ ...task, mergeFailed: event.reason });
  return { context: draft.changes };
}

// A running attempt reserved files (team_reserve): they are held against other tasks until it ends.
export function noteReserved(context: PipelineContext, event: EventOf<'files.reserved'>): Step {
  const task = context.tasks[event.task_id];
  if (!task || task.status !== 'running' || task.attempt !== event.attempt || event.files.length === 0) return {};
  const draft = new TaskDraft(context);
  draft.put({ ...task, reserved: [...new Set([...(task.reserved ?? []), ...event.files])] });
  return { context: draft.changes };
}

// An explicit retry of an interrupted or failed task.
export function retryTask(context: PipelineContext, event: EventOf<'task.retry'>): Step {
  if (!canRetryTask(context, event)) return {};
  const task = context.tasks[event.task_id]!;
  const draft = new TaskDraft(context);
  draft.put({ ...task, status: 'pending' });
  return { context: draft.changes };
}

// A retry applies to an interrupted or failed task, as its next attempt.
export function canRetryTask(context: PipelineContext, event: EventOf<'task.retry'>): boolean {
  const task = context.tasks[event.task_id];
  return task !== undefined && (task.status === 'interrupted' || task.status === 'failed') && event.attempt === task.attempt + 1;
}

// A resume with --retry-interrupted puts every interrupted task back in the queue.
export function resumeRun(context: PipelineContext, event: EventOf<'run.resumed'>): Step {
  if (!event.retry_interrupted) return { context: { retryInterrupted: false } };
  const tasks = Object.fromEntries(Object.entries(context.tasks).map(([id, t]) => [id, t.status === 'interrupted' ? { ...t, status: 'pending' as const } : t]));
  return { context: { retryInterrupted: true, tasks, taskIndex: indexTasks(tasks) } };
}

// The architect's verdict: approve clears the reasons; a reject always carries one.
export function acceptReview(_context: PipelineContext, event: EventOf<'review.result'>): Step {
  const reasons = event.verdict === 'approve' ? [] : event.reasons.length ? event.reasons : ['rejected without reasons'];
  return { context: { reviewReasons: reasons } };
}

// The architect's reasons for a rejection become the defects of the next fix loop.
export function concludeReview(context: PipelineContext): Step {
  return { context: { defects: context.reviewReasons.map((reason, i) => ({ id: `review-${i + 1}`, description: reason })) } };
}

// team-fix: one fix task per defect, assigned to workers, for the next exec pass.
export function startFixLoop(context: PipelineContext): Step {
  const loop = context.loop + 1;
  const defs = makeFixTasks(context.defects, loop, context.iteration, Object.keys(context.tasks));
  // A fix task per defect, each apart: every worker may take one (the plan's width held its own tasks only).
  const workers = assignWorkers(defs.map((d) => d.id), rosterOf(context));
  const draft = new TaskDraft(context);
  const decisions = [];
  for (const [i, def] of defs.entries()) {
    const fixer = fixerOf(context, context.defects[i]!);
    draft.put({ id: def.id, def, kind: 'fix', role: fixer.role, worker: workers[def.id]!, status: 'pending', attempt: 0, failures: 0, failedOn: [], evidence: '', artifacts: [], pass: loop });
    if (fixer.why) decisions.push({ task_id: def.id, role: fixer.role, agent: agentOf(context, fixer.role), why: fixer.why });
  }
  if (decisions.length > 0) decisions.push(...routeRole(context, 'debugger').decisions);
  const decided = recordDecisions({ ...context, loop }, 'team-fix', decisions);
  return {
    context: { loop, ...draft.changes, order: [...context.order, ...defs.map((d) => d.id)], verdict: null, gateResults: [], planWidth: undefined, ...decided.context },
    records: [
      { event: 'fix_loop_started', iteration: context.iteration, loop, defects: context.defects },
      ...assigned(defs, workers),
      ...decided.records,
    ],
  };
}

// Ralph: the iteration's fix loops are spent; start again from team-plan with every handoff.
export function startNextIteration(context: PipelineContext, outcome: string): Step {
  const iteration = context.iteration + 1;
  return {
    context: {
      iteration,
      loop: 0,
      tasks: {},
      taskIndex: emptyTaskIndex(),
      order: [],
      stageAttempt: null,
      verdict: null,
      gateResults: [],
      workerFailures: {},
      iterations: [...context.iterations, { iteration: context.iteration, loops: context.loop, outcome, defects: context.defects, reviewReasons: context.reviewReasons }],
    },
    records: [{ event: 'iteration_started', iteration }],
  };
}

export function lastLines(text: string, count = 5): string {
  return text.trim().split('\n').slice(-count).join(' | ').slice(0, 600);
}

// The event vocabulary of the log, which the pipeline machine writes: one zod schema per event
// name (SPEC section 3). The machine owns it; the checkpoint store reads and writes it.
import { z } from 'zod';
import { builtOnUse, once } from '../sys/once.js';


const base = () => ({ at: z.string().min(1), run_id: z.string().min(1) });
// How idle workers take tasks: `plan-order`, the next ready task of the plan whoever it was planned
// for; `own-first`, the next ready task planned for the worker, and another's only when it has none.
export const SCHEDULES = ['plan-order', 'own-first'] as const;
export type Schedule = (typeof SCHEDULES)[number];
const TERMINAL = ['completed', 'failed', 'interrupted', 'awaiting_approval'] as const;
export const TERMINAL_STATUSES: readonly string[] = TERMINAL;
export type TerminalStatus = (typeof TERMINAL)[number];

// The seed's task event fields, exactly.
const taskFields = () => ({
  ...base(),
  task_id: z.string().min(1),
  stage: z.string().min(1),
  agent: z.string(),
  attempt: z.number().int().positive(),
  session: z.string(),
  parent_session: z.string(),
  inputs: z.array(z.string()),
  artifacts: z.array(z.string()),
  evidence: z.string(),
  next: z.string(),
});

const taskRef = () => ({ task_id: z.string().min(1), attempt: z.number().int().positive() });

// The most candidates one task may have: each is a whole attempt, paid for.
export const MAX_BEST_OF = 8;

export const taskDefSchema = once(() => z.strictObject({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  role: z.string().optional(),
  /** The planner's tag: the agent (a configured agent name) that should do the task (issue 30). */
  agent: z.string().optional(),
  blockedBy: z.array(z.string()).optional(),
  acceptance: z.array(z.string()).optional(),
  /** The files (paths or globs, relative to the project) the task will change: tasks whose files overlap never run at once (issue 38). */
  files: z.array(z.string()).optional(),
  /** The best of N (issue 38): this many candidate attempts of the task run at once, each in its own worktree, and a selector picks one to merge. */
  bestOf: z.number().int().min(1).max(MAX_BEST_OF).optional(),
  /** The agents the candidates run on, in turn (["claude", "codex"] races two vendors); absent: the task's own agent. */
  agents: z.array(z.string()).min(1).max(MAX_BEST_OF).optional(),
  /** teamline's own: the task this one is a candidate of (never in a plan). */
  candidateOf: z.string().optional(),
}));
export type TaskDef = z.infer<ReturnType<typeof taskDefSchema>>;

export const defectSchema = once(() => z.strictObject({
  id: z.string(),
  description: z.string(),
  task: z.string().optional(),
  /** Who found it (a gate, the verifier, a reviewer); absent in older logs and from the verifier's own result. */
  by: z.string().optional(),
}));
export type Defect = z.infer<ReturnType<typeof defectSchema>>;

const gateSchema = once(() => z.object({
  command: z.string(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number(),
  output: z.string(),
}));
export type GateResult = z.infer<ReturnType<typeof gateSchema>>;

const handleSchema = once(() => z.object({
  backend: z.enum(['process', 'tmux']),
  pid: z.number().int(),
  pidStart: z.number().int(),
  pgid: z.number().int(),
  bootId: z.string().optional(),
  /** The pid namespace the pid is in (/proc/self/ns/pid); absent in older logs. */
  pidNs: z.string().optional(),
  forksAt: z.number().int().nonnegative().optional(),
  server: z.string().optional(),
  socketDir: z.string().optional(),
  paneId: z.string().optional(),
  window: z.string().optional(),
}));

const limitsSchema = once(() => z.object({
  maxTasks: z.number().int(),
  maxFixLoops: z.number().int(),
  maxTaskAttempts: z.number().int(),
  maxIterations: z.number().int(),
  statusCheckMs: z.number().int(),
  reassignMs: z.number().int(),
  shutdownTimeoutMs: z.number().int(),
  /** A rate limit that lasts this long fails the run (team.rateLimitGiveUpMs); absent in older logs: 30 min. */
  rateLimitGiveUpMs: z.number().int().optional(),
}));
export type Limits = z.infer<ReturnType<typeof limitsSchema>>;

// How a run keeps its workers apart (team.isolation), decided once at its start.
const isolationSchema = once(() => z.object({
  mode: z.enum(['worktree', 'none']),
  /** Why this mode: the config said so, or what was found about the project. */
  reason: z.string(),
  /** worktree: the integration branch `team/<run>`, the commit it starts from, the user's branch. */
  branch: z.string().optional(),
  base: z.string().optional(),
  userBranch: z.string().optional(),
  /** The project's folder inside its repository ('' at the top). */
  prefix: z.string().optional(),
  /** Land the integration branch into the user's branch when the run completes (--land). */
  land: z.boolean().optional(),
  /** PostgreSQL store: the git remote the branches go through; the workers make the task worktrees in their own clones. */
  remote: z.string().optional(),
  /** worktree: the folder of the run's worktrees (src/isolation/worktree-root.ts); absent in older logs: `.team/worktrees/<run>`. */
  worktrees: z.string().optional(),
  /** Why the worktrees are in the project's `.team/worktrees/` and not the state folder. */
  worktreesWhy: z.string().optional(),
}));
export type IsolationRecord = z.infer<ReturnType<typeof isolationSchema>>;

// Stage routing (issue 30): how the machine picks extra agents per stage, fixed at the run's start.
export const COST_MODES = ['economy', 'balanced', 'quality'] as const;
export type CostMode = (typeof COST_MODES)[number];
const routingPolicySchema = once(() => z.object({
  /** A code-reviewer joins verify when more files than this changed. */
  reviewFiles: z.number().int().nonnegative(),
  /** Who fixes build, type and failing-gate defects. */
  fixer: z.enum(['debugger', 'executor']),
  /** The agent names the config knows, for the planner's per-task agent tags. */
  known: z.array(z.string()),
  /** An explore agent reads the codebase before the planner plans. */
  explore: z.boolean().optional(),
  /** A critic challenges the scope after the analyst, in team-prd. */
  critic: z.boolean().optional(),
  /** An architect reviews the plan's boundaries in team-plan: always, or when the planner asks (`needsArchitect`). */
  architect: z.enum(['always', 'on-request']).optional(),
  /** `always`: every plan goes through team-prd's analyst, whatever the planner says. */
  analyst: z.literal('always').optional(),
}));
// What an explore agent found (read-only): the relevant files, the build and test commands, the conventions.
export const findingsSchema = once(() => z.strictObject({
  files: z.array(z.string()).default([]),
  commands: z.array(z.string()).default([]),
  conventions: z.array(z.string()).default([]),
}));
export type Findings = z.infer<ReturnType<typeof findingsSchema>>;
export type RoutingPolicy = z.infer<ReturnType<typeof routingPolicySchema>>;
const decisionSchema = once(() => z.object({ role: z.string(), agent: z.string(), task_id: z.string().optional(), why: z.string() }));
export type RoutingDecision = z.infer<ReturnType<typeof decisionSchema>>;
// A run's budget (issue 29): spend in dollars and/or tokens, and what running attempts do past it.
export const budgetSchema = once(() => z.object({
  usd: z.number().positive().optional(),
  tokens: z.number().int().positive().optional(),
  onExceed: z.enum(['stop', 'finish']),
}));
export type Budget = z.infer<ReturnType<typeof budgetSchema>>;
const spendFields = () => ({ cost_usd: z.number().nonnegative().optional(), tokens: z.object({ input: z.number().nonnegative(), output: z.number().nonnegative(), /** Of the input, served from the provider's prompt cache. */ cached: z.number().nonnegative().optional() }).optional() });

const gitRef = () => ({ branch: z.string().min(1) });
// A reading of the user's checkout (src/git/checkout-state.ts): HEAD, its branch, local branches, listed paths.
const checkoutStateSchema = once(() => z.object({ head: z.string(), branch: z.string(), branches: z.record(z.string(), z.string()), files: z.record(z.string(), z.string()) }));
const mergeRef = () => ({ ...base(), ...taskRef(), ...gitRef(), into: z.string().min(1) });

// What every record made from a team tool call or an inbox request carries (issue 28).
const teamCall = () => ({ key: z.string().min(1), task_id: z.string().optional(), attempt: z.number().int().positive().optional(), read_through: z.number().int().nonnegative().optional() });

// Each event's schema, built the first time it is used: zod does much of its work as a schema is
// made (every instance binds its methods), and most commands read a few of these kinds (`team
// status` spent 18 of its 105 ms making all of them).
export const EVENT_SCHEMAS = builtOnUse({
  task_started: () => z.strictObject({ event: z.literal('task_started'), ...taskFields(), status: z.literal('running') }),
  task_finished: () => z.strictObject({
    event: z.literal('task_finished'),
    ...taskFields(),
    status: z.enum(TERMINAL),
    /** Present on a failure no retry can fix (credentials, quota, model): the run stops at it. */
    retryable: z.literal(false).optional(),
  }),
  task_retry: () => z.object({ event: z.literal('task_retry'), ...base(), ...taskRef(), reason: z.string() }),
  run_started: () => z.object({
    event: z.literal('run_started'),
    ...base(),
    mode: z.enum(['team', 'ralph']),
    task: z.string(),
    workers: z.number().int().positive(),
    agentType: z.string(),
    limits: limitsSchema(),
    gates: z.array(z.string()),
    /** role → agent name; roles not listed use defaultAgent. */
    agents: z.record(z.string(), z.string()),
    defaultAgent: z.string(),
    session: z.string(),
    parent_session: z.string(),
    /** Where new workers run unless their agent says otherwise. */
    workerMode: z.enum(['headless', 'tmux']),
    keepPanes: z.boolean(),
    isolation: isolationSchema().optional(),
    /** How idle workers take tasks (machines/schedule.ts); absent in the logs of earlier versions: plan-order. */
    schedule: z.enum(SCHEDULES).optional(),
    /** Stage routing (issue 30): the policy the machine routes by; absent in older logs: one agent per stage, as then. */
    routing: routingPolicySchema().optional(),
    /** The cost mode the models were chosen by, and the model each role runs on (role → model); absent: each agent's own. */
    costMode: z.enum(COST_MODES).optional(),
    models: z.record(z.string(), z.string()).optional(),
    /** The run's budget (team.budget, --budget-usd, --budget-tokens); absent: none. */
    budget: budgetSchema().optional(),
    /** The config file the run started with (absolute), which a resume without --config uses; absent: defaults, or an older log. */
    configFile: z.string().optional(),
    /** Whether this machine's attempts run inside the OS fence (team.fence), and why not; absent in older logs: unfenced. */
    fence: z.strictObject({ on: z.boolean(), why: z.string().optional() }).optional(),
    /** The best of N for every planned task that names none (--best-of, team.bestOf); absent: one attempt at a time. */
    bestOf: z.number().int().min(2).max(MAX_BEST_OF).optional(),
  }),
  run_resumed: () => z.object({ event: z.literal('run_resumed'), ...base(), pid: z.number().int(), retry_interrupted: z.boolean() }),
  gates_result: () => z.object({ event: z.literal('gates_result'), ...base(), iteration: z.number().int(), pass: z.number().int(), gates: z.array(gateSchema()) }),
  /** A verify gate's process group, recorded before the gate runs: a takeover stops what is left of it. */
  gate_spawned: () => z.object({ event: z.literal('gate_spawned'), ...base(), iteration: z.number().int(), pass: z.number().int(), gate: z.number().int().positive(), command: z.string(), handle: handleSchema(), /** A candidate's gate (the best of N; pass 0), not a verify pass's. */ task_id: z.string().optional() }),
  task_blocked: () => z.object({ event: z.literal('task_blocked'), ...base(), task_id: z.string(), reason: z.string() }),
  stage_entered: () => z.object({ event: z.literal('stage_entered'), ...base(), stage: z.string(), iteration: z.number().int(), loop: z.number().int() }),
  stage_completed: () => z.object({ event: z.literal('stage_completed'), ...base(), stage: z.string(), iteration: z.number().int(), loop: z.number().int() }),
  stage_skipped: () => z.object({ event: z.literal('stage_skipped'), ...base(), stage: z.string(), iteration: z.number().int(), reason: z.string() }),
  task_assigned: () => z.object({ event: z.literal('task_assigned'), ...base(), task_id: z.string(), worker: z.string(), task: taskDefSchema().optional() }),
  /** The tasks a plan or a fix loop adds, each with its worker: one record for the step that made them all. */
  tasks_assigned: () => z.object({ event: z.literal('tasks_assigned'), ...base(), tasks: z.array(z.strictObject({ task_id: z.string(), worker: z.string(), task: taskDefSchema() })).min(1) }),
  plan_accepted: () => z.object({
    event: z.literal('plan_accepted'),
    ...base(),
    ...taskRef(),
    tasks: z.array(taskDefSchema()),
    needsPrd: z.boolean(),
    /** The planner marks the work architectural: verify adds a code-reviewer (issue 30; absent in older logs). */
    architectural: z.boolean().optional(),
    /** The planner asks an architect to review the plan's boundaries (issue 30; absent in older logs). */
    needsArchitect: z.boolean().optional(),
  }),
  prd_accepted: () => z.object({ event: z.literal('prd_accepted'), ...base(), ...taskRef(), acceptance: z.record(z.string(), z.array(z.string())) }),
  verify_result: () => z.object({
    event: z.literal('verify_result'),
    ...base(),
    ...taskRef(),
    verdict: z.enum(['pass', 'fail']),
    defects: z.array(defectSchema()),
  }),
  review_result: () => z.object({ event: z.literal('review_result'), ...base(), ...taskRef(), verdict: z.enum(['approve', 'reject']), reasons: z.array(z.string()) }),
  attempt_spawned: () => z.object({ event: z.literal('attempt_spawned'), ...base(), ...taskRef(), worker: z.string(), handle: handleSchema() }),
  /** A `team worker` (PostgreSQL store) took the attempt and started its agent on its own machine. */
  attempt_taken: () => z.object({
    event: z.literal('attempt_taken'),
    ...base(),
    ...taskRef(),
    worker: z.string(),
    worker_id: z.string(),
    host: z.string(),
    /** The agent's wrapper on that machine: never signalled or adopted by the run's writer. */
    pid: z.number().int(),
    /** The wrapper's start time (with pid and boot_id, which process it is; absent in older logs). */
    pid_start: z.number().int().nonnegative().optional(),
    boot_id: z.string(),
    report: z.number().int().positive(),
  }),
  attempt_usage: () => z.object({
    event: z.literal('attempt_usage'),
    ...base(),
    ...taskRef(),
    stage: z.string(),
    agent: z.string(),
    session_id: z.string().optional(),
    cost_usd: z.number().optional(),
    /** `cached`: of the input, the tokens the provider served from its prompt cache (absent: none reported). */
    tokens: z.object({ input: z.number(), output: z.number(), cached: z.number().optional() }).optional(),
    /** The worker's report it was read from (PostgreSQL store): read once, counted once. */
    report: z.number().int().positive().optional(),
  }),
  attempt_stalled: () => z.object({ event: z.literal('attempt_stalled'), ...base(), ...taskRef(), silent_ms: z.number() }),
  /** Written before the runtime kills an attempt's worker on its own (the watchdog). */
  attempt_stopping: () => z.object({ event: z.literal('attempt_stopping'), ...base(), ...taskRef(), by: z.string(), reason: z.string() }),
  fix_loop_started: () => z.object({ event: z.literal('fix_loop_started'), ...base(), iteration: z.number().int(), loop: z.number().int(), defects: z.array(defectSchema()) }),
  iteration_started: () => z.object({ event: z.literal('iteration_started'), ...base(), iteration: z.number().int() }),
  /** With the handoff's text (absent in older logs): the log alone holds everything a prompt includes. */
  handoff_written: () => z.object({ event: z.literal('handoff_written'), ...base(), stage: z.string(), path: z.string(), sha256: z.string(), text: z.string().optional() }),
  cancel_requested: () => z.object({ event: z.literal('cancel_requested'), ...base(), by: z.string(), force: z.boolean() }),
  run_completed: () => z.object({ event: z.literal('run_completed'), ...base(), summary: z.string() }),
  run_failed: () => z.object({ event: z.literal('run_failed'), ...base(), reason: z.string() }),
  run_cancelled: () => z.object({ event: z.literal('run_cancelled'), ...base(), reason: z.string() }),
  run_stopped: () => z.object({ event: z.literal('run_stopped'), ...base(), reason: z.string(), attempts: z.array(z.string()) }),
  // Git facts of worktree isolation. The machine reads only merge_failed (the task cannot be retried).
  branch_created: () => z.object({ event: z.literal('branch_created'), ...base(), ...gitRef(), from: z.string(), commit: z.string(), task_id: z.string().optional() }),
  worktree_ready: () => z.object({
    event: z.literal('worktree_ready'),
    ...base(),
    ...taskRef(),
    ...gitRef(),
    path: z.string(),
    worker: z.string(),
    how: z.enum(['created', 'recreated', 'adopted', 'switched']),
    /** A conflict fix: the branch whose merge waits, conflicted, in the worktree. */
    merging: z.string().optional(),
    conflicts: z.array(z.string()).optional(),
  }),
  task_committed: () => z.object({ event: z.literal('task_committed'), ...base(), ...taskRef(), ...gitRef(), commit: z.string(), files: z.array(z.string()), why: z.string() }),
  merge_started: () => z.object({ event: z.literal('merge_started'), ...mergeRef(), tip: z.string() }),
  merge_done: () => z.object({ event: z.literal('merge_done'), ...mergeRef(), commit: z.string(), how: z.enum(['merged', 'already merged', 'finished after a restart']) }),
  merge_failed: () => z.object({
    event: z.literal('merge_failed'),
    ...mergeRef(),
    reason: z.enum(['conflict', 'runtime-files']),
    files: z.array(z.string()),
    ours: z.string(),
    theirs: z.string(),
  }),
  worktree_stashed: () => z.object({ event: z.literal('worktree_stashed'), ...base(), path: z.string(), stash: z.string(), why: z.string() }),
  branches_kept: () => z.object({ event: z.literal('branches_kept'), ...base(), branches: z.array(z.object({ branch: z.string(), commits: z.number().int() })) }),
  branch_landed: () => z.object({ event: z.literal('branch_landed'), ...base(), ...gitRef(), into: z.string(), commit: z.string() }),
  worktree_removed: () => z.object({ event: z.literal('worktree_removed'), ...base(), path: z.string() }),
  branch_deleted: () => z.object({ event: z.literal('branch_deleted'), ...base(), ...gitRef(), commit: z.string() }),
  /** The integration branch was gone (`was` absent) or elsewhere than the log recorded: put back at `commit`, what it held kept as `kept`. */
  /** A git lock no process holds (a crash): removed in teamline's own worktrees, reported and left in the user's checkout. */
  git_lock_stale: () => z.object({ event: z.literal('git_lock_stale'), ...base(), path: z.string(), removed: z.boolean() }),
  /** The watch on the user's checkout: what it was at the run's start (or its resume). */
  checkout_recorded: () => z.object({ event: z.literal('checkout_recorded'), ...base(), state: checkoutStateSchema() }),
  /** The user's checkout changed while the run ran: what changed, when it was seen, the attempts running then, and the new reading. */
  /** A resume on a machine (or with a config) where the fence the run started with is not built: its attempts from here run unfenced, and why. */
  fence_lost: () => z.object({ event: z.literal('fence_lost'), ...base(), why: z.string() }),
  /** Writes an attempt's agent was refused as read-only (the fence), read from its output: the paths, at most 20. */
  /** A candidate's gates (verify.commands), run in its own worktree when it completed (issue 38). */
  candidate_gated: () => z.object({ event: z.literal('candidate_gated'), ...base(), ...taskRef(), candidate_of: z.string(), gates: z.array(gateSchema()) }),
  /** The selector's pick among a task's candidates, with its reasons: the pick's branch is merged, the others kept. */
  candidate_picked: () => z.object({ event: z.literal('candidate_picked'), ...base(), ...taskRef(), pick: z.string(), reasons: z.array(z.string()), branch: z.string().optional() }),
  files_strayed: () => z.object({ event: z.literal('files_strayed'), ...base(), task_id: z.string(), attempt: z.number().int().positive(), paths: z.array(z.string()).min(1), more: z.number().int().nonnegative() }),
  fence_refused: () => z.object({ event: z.literal('fence_refused'), ...base(), task_id: z.string(), attempt: z.number().int().positive(), worker: z.string(), paths: z.array(z.string()).min(1) }),
  /** isolation none: the user's uncommitted work at the run's start, kept as a commit under `ref` for `team restore` (the first 50 paths). */
  checkout_saved: () => z.object({ event: z.literal('checkout_saved'), ...base(), ref: z.string(), commit: z.string(), paths: z.array(z.string()) }),
  /** `team restore`: the working tree put back at the saved commit; what it held before is kept under `kept`. */
  checkout_restored: () => z.object({ event: z.literal('checkout_restored'), ...base(), commit: z.string(), kept: z.string(), keptCommit: z.string() }),
  checkout_changed: () => z.object({ event: z.literal('checkout_changed'), ...base(), changes: z.array(z.string()), seen: z.string(), attempts: z.array(z.string()), state: checkoutStateSchema() }),
  /** `team land --acknowledge`: the person saw the changes to their checkout and lands anyway. */
  checkout_acknowledged: () => z.object({ event: z.literal('checkout_acknowledged'), ...base(), changes: z.number().int() }),
  branch_restored: () => z.object({ event: z.literal('branch_restored'), ...base(), ...gitRef(), commit: z.string(), was: z.string().optional(), kept: z.string().optional() }),
  // Issue 28: the team tools (`team mcp`), the lead's side and the writer inbox. Every record made
  // from a request carries its idempotency key (`key`): the fold knows each key recorded, so a
  // retried or replayed request is recorded once. `read_through`: the caller was handed every
  // message for it among the first `read_through` messages of the log.
  /** A message to `lead`, a worker (worker-N) or a task id: from a worker's tool call, or from the human (`team say`: from "human"). */
  team_message: () => z.object({ event: z.literal('team_message'), ...base(), ...teamCall(), from: z.string().min(1), to: z.string().min(1), text: z.string(), question: z.boolean().optional() }),
  /** A worker's note of what it is doing: a sign of life with content. */
  team_progress: () => z.object({ event: z.literal('team_progress'), ...base(), ...teamCall(), ...taskRef(), worker: z.string(), text: z.string() }),
  /** Files a worker is about to change, and who held any of them then (advisory). */
  team_reserved: () => z.object({
    event: z.literal('team_reserved'),
    ...base(),
    ...teamCall(),
    ...taskRef(),
    worker: z.string(),
    files: z.array(z.string()),
    held: z.array(z.strictObject({ file: z.string(), worker: z.string(), task_id: z.string() })),
  }),
  /** A call that only reads: the task list or the inbox. */
  team_looked: () => z.object({ event: z.literal('team_looked'), ...base(), ...teamCall(), ...taskRef(), worker: z.string(), tool: z.enum(['team_tasks', 'team_inbox']) }),
  /** The result handed through team_done / team_fail (written to the attempt's result file). */
  team_result: () => z.object({ event: z.literal('team_result'), ...base(), ...teamCall(), ...taskRef(), worker: z.string(), status: z.enum(['completed', 'failed']) }),
  /** Cancel asked a live attempt with the tools to stop: it sees it at its next call. */
  team_shutdown_requested: () => z.object({ event: z.literal('team_shutdown_requested'), ...base(), ...taskRef(), worker: z.string(), by: z.string() }),
  /** A request to the writer that was not recorded, and why (unknown kind, invalid body). */
  inbox_refused: () => z.object({ event: z.literal('inbox_refused'), ...base(), key: z.string(), kind: z.string(), reason: z.string() }),
  // Issue 30, stage routing.
  /** What the run changed, read before verify decides its reviewers: the count of changed files and why they look security-sensitive. */
  changes_scanned: () => z.object({ event: z.literal('changes_scanned'), ...base(), iteration: z.number().int(), pass: z.number().int(), files: z.number().int().nonnegative(), security: z.array(z.string()) }),
  /** The machine's routing decisions for a stage, written before the attempts they start. */
  routing_decided: () => z.object({ event: z.literal('routing_decided'), ...base(), stage: z.string(), iteration: z.number().int(), loop: z.number().int(), decisions: z.array(decisionSchema()).min(1) }),
  /** What the explore agent found, before the planner starts: it goes into the planner's prompt and the plan's handoff. */
  explore_found: () => z.object({ event: z.literal('explore_found'), ...base(), ...taskRef(), findings: findingsSchema() }),
  /** The plan's architect: what it decided about the system's boundaries, and the risks it sees. */
  architect_noted: () => z.object({ event: z.literal('architect_noted'), ...base(), ...taskRef(), notes: z.array(z.string()), risks: z.array(z.string()) }),
  /** The critic's objections to the scope, and the acceptance criteria it adds (task id → criteria). */
  critic_objected: () => z.object({ event: z.literal('critic_objected'), ...base(), ...taskRef(), objections: z.array(z.string()), acceptance: z.record(z.string(), z.array(z.string())) }),
  /** `team scale N`, taken from the writer inbox: the run is asked to run with N workers. */
  team_scaled: () => z.object({ event: z.literal('team_scaled'), ...base(), key: z.string(), workers: z.number().int().min(1).max(20), by: z.string() }),
  /** The machine's answer to team_scaled: the workers that take work now, those added (new names) and those drained. */
  /** The plan is narrower than the run's workers: only the first `workers` take its tasks (issue 38). */
  workers_sized: () => z.object({ event: z.literal('workers_sized'), ...base(), asked: z.number().int().positive(), width: z.number().int().positive(), workers: z.array(z.string()) }),
  workers_changed: () => z.object({ event: z.literal('workers_changed'), ...base(), workers: z.number().int(), roster: z.array(z.string()), added: z.array(z.string()), drained: z.array(z.string()) }),
  // Issue 29: spend and rate.
  /** What a running attempt spent so far, as its CLI reports it while it works (totals, not increments); its attempt_usage supersedes it. */
  attempt_spend: () => z.object({ event: z.literal('attempt_spend'), ...base(), ...taskRef(), stage: z.string(), agent: z.string(), ...spendFields(), /** The worker's report it was read from (PostgreSQL store): read once. */ report: z.number().int().positive().optional() }),
  /** An attempt ended rate-limited or overloaded: retried after a back-off, counted as no failure. `jitter` (0..1) makes the back-off replayable. */
  attempt_throttled: () => z.object({
    event: z.literal('attempt_throttled'),
    ...base(),
    ...taskRef(),
    agent: z.string(),
    reason: z.string(),
    retry_after_ms: z.number().int().nonnegative().optional(),
    jitter: z.number().min(0).max(1),
  }),
  /** A running attempt's CLI retries a rate limit or an overload itself (its first notice of an episode: until its output shows progress again); the agent's lanes halve and a back-off starts for its other attempts, the attempt goes on. */
  attempt_retrying: () => z.object({
    event: z.literal('attempt_retrying'),
    ...base(),
    ...taskRef(),
    agent: z.string(),
    reason: z.string(),
    /** Which retry of how many, when the CLI's notice says. */
    retry: z.number().int().nonnegative().optional(),
    of: z.number().int().nonnegative().optional(),
    retry_after_ms: z.number().int().nonnegative().optional(),
    jitter: z.number().min(0).max(1),
    /** On the PostgreSQL store: the seq of the worker's report it was made from. */
    report: z.number().int().positive().optional(),
  }),
  /** The back-off of an agent is over: its lanes take attempts again. */
  backoff_ended: () => z.object({ event: z.literal('backoff_ended'), ...base(), agent: z.string() }),
  /** The run's spend reached its budget: no attempt starts; with onExceed stop, running ones are stopped. */
  budget_exceeded: () => z.object({ event: z.literal('budget_exceeded'), ...base(), reason: z.string(), stop_running: z.boolean(), spent_usd: z.number(), spent_tokens: z.number(), /** The budget's parts that ran out, whose flags raise it; absent in older logs. */ parts: z.array(z.enum(['usd', 'tokens'])).optional() }),
  /** An agent's quota is spent (a plan's usage limit, a billing limit): no back-off brings it back, so no attempt starts and the run stops for a decision; `resets` is when, in the CLI's words. */
  quota_reached: () => z.object({ event: z.literal('quota_reached'), ...base(), ...taskRef(), agent: z.string(), reason: z.string(), resets: z.string().optional() }),
  /** `team resume` of a run a spent quota stopped: the user says it is back; the attempts it stopped are tried again. */
  quota_cleared: () => z.object({ event: z.literal('quota_cleared'), ...base() }),
  /** `team resume --budget-usd / --budget-tokens`: the new budget (unnamed parts stay). */
  budget_raised: () => z.object({ event: z.literal('budget_raised'), ...base(), /** Taken from the writer inbox (a live run's raise): the request's key. */ key: z.string().optional(), usd: z.number().positive().optional(), tokens: z.number().int().positive().optional() }),
});

export type EventName = keyof typeof EVENT_SCHEMAS;
export type EventOf<N extends EventName> = z.infer<(typeof EVENT_SCHEMAS)[N]>;
export type TeamEvent = { [N in EventName]: EventOf<N> }[EventName];
export type TaskEvent = EventOf<'task_started'> | EventOf<'task_finished'>;
// An event as handed to the store: `at` and `run_id` are filled in on append.
export type NewEvent = { [N in EventName]: Omit<EventOf<N>, 'at' | 'run_id'> }[EventName];

export const approvalSchema = once(() => z.strictObject({
  stage: z.string().min(1),
  artifact: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  by: z.string().min(1),
  approved_at: z.string().min(1),
  note: z.string(),
}));
export type Approval = z.infer<ReturnType<typeof approvalSchema>>;

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.hasOwn(EVENT_SCHEMAS, name);
}

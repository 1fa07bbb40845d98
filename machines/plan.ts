// Pure checks and transforms of a planner's task graph.
import { claimProblem } from './ownership.js';
import type { Defect, TaskDef } from './types.js';

// The most files one task may claim: past that, a folder or a glob says it better.
const MAX_CLAIMS = 100;

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

// The ids teamline gives its own tasks, which a plan task could otherwise collide with (its
// attempts in the same folders, on the same branch): the form each has, in words.
const RESERVED: Array<[RegExp, string]> = [
  [/^i\d+\./, 'i<iteration>.<task>'],
  [/^fix-\d+-/, 'fix-<loop>-<defect>'],
  [/^(?:verify|review)-\d+$/, 'verify-<pass>, review-<pass>'],
  [/^(?:plan|prd|integration)$/, 'plan, prd, integration'],
  // Stage routing's own tasks: the explore agent, and the reviewers beside a verifier.
  [/^(?:explore|critic|architect)$/, 'explore, critic, architect'],
  [/^verify-\d+\./, 'verify-<pass>.<role>'],
  // The best of N's candidates of a task.
  [/--c\d+$/, '<task>--c<k>'],
];

// The first problem of a plan, in words, or undefined when the plan is valid.
export function findPlanProblem(tasks: TaskDef[], maxTasks: number): string | undefined {
  if (tasks.length === 0) return 'the plan has no task';
  if (tasks.length > maxTasks) return `the plan has ${tasks.length} tasks, over team.maxTasks (${maxTasks})`;
  const ids = new Set<string>();
  for (const task of tasks) {
    if (!ID.test(task.id)) return `task id ${JSON.stringify(task.id)} is not a valid id`;
    const reserved = RESERVED.find(([form]) => form.test(task.id));
    if (reserved) return `task id "${task.id}" has the form of the tasks teamline makes itself (${reserved[1]}); name it otherwise`;
    if (ids.has(task.id)) return `task id "${task.id}" is used twice`;
    ids.add(task.id);
  }
  for (const task of tasks) {
    if (task.candidateOf !== undefined) return `task "${task.id}" has candidateOf, which only teamline sets (a plan asks for candidates with bestOf)`;
    if ((task.files?.length ?? 0) > MAX_CLAIMS) return `task "${task.id}" claims ${task.files!.length} files, over ${MAX_CLAIMS} (name a folder or a glob instead)`;
    for (const claim of task.files ?? []) {
      const problem = claimProblem(claim);
      if (problem) return `task "${task.id}" claims ${problem} in its files`;
    }
  }
  for (const task of tasks) {
    for (const dep of task.blockedBy ?? []) {
      if (!ids.has(dep)) return `task "${task.id}" is blockedBy "${dep}", which is not a task of the plan`;
      if (dep === task.id) return `task "${task.id}" is blocked by itself`;
    }
  }
  const cycle = findCycle(tasks);
  return cycle ? `the plan has a dependency cycle: ${cycle.join(' → ')}` : undefined;
}

// A cycle of blockedBy edges as a list of ids (first id repeated at the end), if any.
function findCycle(tasks: TaskDef[]): string[] | undefined {
  const deps = new Map(tasks.map((t) => [t.id, t.blockedBy ?? []]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    for (const dep of deps.get(id) ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const task of tasks) {
    const found = visit(task.id);
    if (found) return found;
  }
  return undefined;
}

// The id of a task's k-th candidate (the best of N).
export function candidateId(taskId: string, k: number): string {
  return `${taskId}--c${k}`;
}

// Ids of iteration k >= 2 get the prefix `i<k>.` so that they never collide with earlier ones.
export function prefixFor(iteration: number): string {
  return iteration > 1 ? `i${iteration}.` : '';
}

// The plan's tasks renamed for an iteration (ids and blockedBy).
export function namespacePlan(tasks: TaskDef[], iteration: number): TaskDef[] {
  const prefix = prefixFor(iteration);
  if (!prefix) return tasks;
  return tasks.map((t) => ({ ...t, id: prefix + t.id, ...(t.blockedBy ? { blockedBy: t.blockedBy.map((d) => prefix + d) } : {}) }));
}

// Fix tasks for a loop: one per defect, with ids none of the `taken` ones (the run's tasks so far).
export function makeFixTasks(defects: Defect[], loop: number, iteration: number, taken: Iterable<string> = []): TaskDef[] {
  const used = new Set<string>(taken);
  return defects.map((defect, index) => {
    const base = `${prefixFor(iteration)}fix-${loop}-${rootDefectId(sanitizeId(defect.id)) || String(index + 1)}`;
    let id = base;
    for (let n = index + 1; used.has(id); n += 1) id = `${base}-${n}`;
    used.add(id);
    return {
      id,
      title: `Fix defect ${defect.id}${defect.task ? ` (task ${defect.task})` : ''}`,
      description: defect.description,
      acceptance: [`defect ${defect.id} no longer reproduces`],
    };
  });
}

// An earlier fix task's own prefix, behind a defect's `task-` (`task-fix-2-task-i2.fix-1-d1`).
const FIX_PREFIX = /^(?:i\d+\.)?fix-\d+-/;

// The defect id without the fix tasks it went through, so fix ids never nest:
// `task-fix-2-task-fix-1-d1` → `task-d1`, `fix-1-gate-1` → `gate-1`.
export function rootDefectId(id: string): string {
  const isTask = id.startsWith('task-');
  let rest = isTask ? id.slice('task-'.length) : id;
  for (;;) {
    const stripped = rest.replace(FIX_PREFIX, '').replace(/^task-/, '');
    if (stripped === rest) break;
    rest = stripped;
  }
  return isTask ? `task-${rest}` : rest;
}

function sanitizeId(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64);
}

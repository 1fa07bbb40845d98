// Facts about a run that several handoffs state: its tasks, files, limits and what comes next.
import type { PipelineContext, TaskState } from '../machines/types.js';
import type { Detail, Extra } from './layout.js';
import { countOf, listOf, toEvidence, toFileName } from './text.js';

// The tasks of the current iteration, in plan order (fix tasks after the planned ones).
export function listTasks(context: PipelineContext): TaskState[] {
  return context.order.flatMap((id) => context.tasks[id] ?? []);
}

// The tasks of one exec pass: 0 is the planned work, j the fix tasks of fix loop j.
export function listPassTasks(context: PipelineContext, pass = context.loop): TaskState[] {
  return listTasks(context).filter((task) => task.pass === pass);
}

// A task that failed without ever starting: blocked by a failed task, or no worker left.
export function isBlocked(task: TaskState): boolean {
  return task.status === 'failed' && task.attempt === 0;
}

// A completed task with what its agent said it did.
export function describeCompleted(task: TaskState): Detail {
  const retried = task.failures > 0 ? `, after ${countOf(task.failures, 'failed attempt')}` : '';
  const candidate = task.def.candidateOf !== undefined ? `candidate of ${task.def.candidateOf}${task.agent !== undefined ? ` on ${task.agent}` : ''}, ` : '';
  return { text: `${task.id} (${candidate}${task.worker}${retried}): ${toEvidence(task.evidence)}`, key: task.id };
}

// A failed or blocked task with the reason it gave.
export function describeFailed(task: TaskState, context: PipelineContext): Detail {
  if (isBlocked(task)) return { text: `${task.id} never ran: ${toEvidence(task.evidence)}`, key: task.id };
  const tries = `${task.failures} of ${context.limits.maxTaskAttempts} attempts failed`;
  return { text: `${task.id} (${task.worker}, ${tries}): ${toEvidence(task.evidence)}`, key: task.id };
}

// Each artifact of `tasks` once, with the tasks that touched it.
export function describeArtifacts(tasks: TaskState[]): Detail[] {
  const owners = new Map<string, string[]>();
  for (const task of tasks) {
    for (const path of task.artifacts) owners.set(path, [...(owners.get(path) ?? []), task.id]);
  }
  return [...owners].map(([path, ids]) => ({ text: `${path} (${listOf(ids)})`, key: path }));
}

// Every handoff written so far, which the next stage's prompts include.
export function describeHandoffs(context: PipelineContext): Detail[] {
  return context.handoffs.map((h) => ({ text: `${h.path} (${h.stage})`, key: toFileName(h.path) }));
}

// The headline of a Files bullet: artifacts counted (and whose), then handoffs counted, then
// (with worktrees) the branches that hold the work.
export function summarizeFiles(artifacts: number, context: PipelineContext, whose = ''): string {
  const handoffs = context.handoffs.length === 0 ? 'no handoff before this one' : `${countOf(context.handoffs.length, 'handoff')} so far`;
  const branches = context.workBranch ? `; merged work on branch ${context.workBranch}, each task's own on ${context.workBranch}--<task>` : '';
  return `${countOf(artifacts, 'artifact')}${whose ? ` ${whose}` : ''}; ${handoffs}${branches}`;
}

// Where the run goes after a verify or review handoff, in words.
export function describeNext(context: PipelineContext, next: string): string {
  const { loop, iteration, limits } = context;
  if (next === 'team-fix') return `team-fix: fix loop ${loop + 1} of ${limits.maxFixLoops}, one fix task per defect (${context.defects.length}), then team-exec and team-verify again`;
  if (next === 'ralph-review') return `ralph-review: the architect reviews iteration ${iteration} of ${limits.maxIterations}`;
  if (next.startsWith('team-plan')) return `${next}: the pipeline starts again from team-plan with every handoff so far (iteration ${iteration + 1} of ${limits.maxIterations})`;
  if (next === 'end (completed)') return 'nothing: the run ends completed';
  if (next === 'end (failed)') return `nothing more runs: the run ends failed (fix loops ${loop} of ${limits.maxFixLoops}${ralphPart(context)})`;
  return next;
}

// Workers with failed attempts; a worker at the limit gets no more work.
export function describeWorkerFailures(context: PipelineContext): Detail[] {
  return Object.keys(context.workerFailures)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .filter((worker) => (context.workerFailures[worker] ?? 0) > 0)
    .map((worker) => {
      const failures = context.workerFailures[worker] ?? 0;
      return { text: `${worker}: ${countOf(failures, 'failed attempt')}${failures >= 2 ? ', gets no more work' : ''}`, key: worker };
    });
}

// True facts about the run, to bring a short handoff up to the minimum length.
export function listRunFacts(context: PipelineContext): Extra[] {
  const tasks = listTasks(context);
  const done = tasks.filter((t) => t.status === 'completed').length;
  return [
    { label: 'Decided', text: `run task: "${toEvidence(context.task)}"` },
    { label: 'Remaining', text: `${context.mode} run, ${countOf(context.workers, 'worker')}, agent type ${context.agentType}` },
    { label: 'Remaining', text: `fix loops spent: ${context.loop} of ${context.limits.maxFixLoops}${ralphPart(context)}` },
    { label: 'Remaining', text: `gate commands: ${listOf(context.gates, 'none configured')}` },
    { label: 'Remaining', text: `tasks so far: ${done} of ${countOf(tasks.length, 'task')} completed` },
  ];
}

function ralphPart(context: PipelineContext): string {
  return context.mode === 'ralph' ? `, iteration ${context.iteration} of ${context.limits.maxIterations}` : '';
}

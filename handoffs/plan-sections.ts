// What the team-plan and team-prd handoffs say: the task graph and its acceptance criteria.
import type { PipelineContext, StageAttempt, TaskState } from '../machines/types.js';
import { describeHandoffs, listTasks } from './facts.js';
import { describeGraphRisks, listWaves } from './graph.js';
import type { Detail, Section, Sections } from './layout.js';
import { countOf, listOf, toEvidence } from './text.js';

// Up to this many workers, the plan's headline names each worker's share.
const LISTED_WORKERS = 5;

// The team-plan handoff: the graph, its assignment, its risks and the exec work ahead.
export function makePlanSections(context: PipelineContext, next: string): Sections {
  const tasks = listTasks(context);
  const prd = context.needsPrd ? 'needsPrd: yes, team-prd writes acceptance criteria first' : 'needsPrd: no, every task has acceptance criteria';
  const planner = describeStageAttempts(context);
  return {
    Decided: {
      headline: `${countOf(tasks.length, 'task')} in iteration ${context.iteration}, pre-assigned ${countWorkers(tasks)}; ${prd}`,
      details: [...planner, ...tasks.map((t) => describePlanned(t, context))],
    },
    Rejected: describeRejectedApproach(context, tasks.length),
    Risks: describeGraphRisks(tasks),
    Files: describeHandoffFiles(context),
    Remaining: {
      headline: `${next === 'team-prd' ? 'team-prd, then ' : ''}team-exec runs ${countOf(tasks.length, 'task')} on up to ${countOf(context.workers, 'worker')} at once, then team-verify`,
      details: listWaves(tasks).map((ids, i) => ({ text: `wave ${i + 1}: ${listOf(ids)}` })),
    },
  };
}

// The team-prd handoff: acceptance criteria per task.
export function makePrdSections(context: PipelineContext): Sections {
  const tasks = listTasks(context);
  const criteria = (t: TaskState) => t.def.acceptance ?? [];
  const missing = tasks.filter((t) => criteria(t).length === 0);
  const total = tasks.reduce((n, t) => n + criteria(t).length, 0);
  const analyst = stageAttemptOf(context, 'analyst');
  const failures = analyst && analyst.failures > 0 ? `; ${countOf(analyst.failures, 'analyst attempt')} failed before this one` : '';
  return {
    Decided: {
      headline: `acceptance criteria for ${tasks.length - missing.length} of ${countOf(tasks.length, 'task')} (${countOf(total, 'criterion', 'criteria')} in all)`,
      details: [
        ...describeStageAttempts(context),
        ...tasks.filter((t) => criteria(t).length > 0).map((t) => ({ text: `${t.id}: ${countOf(criteria(t).length, 'criterion', 'criteria')}, e.g. "${toEvidence(criteria(t)[0]!)}"`, key: t.id })),
      ],
    },
    Rejected: {
      headline: `${missing.length === 0 ? 'no task left without acceptance criteria' : `no criteria given for ${countOf(missing.length, 'task')}`}${failures}`,
      details: missing.map((t) => ({ text: `${t.id} "${t.def.title}": no criteria, its worker has only the description`, key: t.id })),
    },
    Risks: describeGraphRisks(tasks),
    Files: describeHandoffFiles(context),
    Remaining: {
      headline: `team-exec runs ${countOf(tasks.length, 'task')} on up to ${countOf(context.workers, 'worker')} at once, then team-verify`,
      details: listWaves(tasks).map((ids, i) => ({ text: `wave ${i + 1}: ${listOf(ids)}` })),
    },
  };
}

// Each single-agent attempt of the stage under its own role: explore and the planner, then the
// architect; the analyst, then the critic.
function describeStageAttempts(context: PipelineContext): Detail[] {
  return [...context.stageEarlier, ...(context.stageAttempt ? [context.stageAttempt] : [])].map((a) => ({ text: `${a.role}: ${toEvidence(a.evidence)}` }));
}

// The stage's attempt of `role`, whether it ran last or before another role's.
function stageAttemptOf(context: PipelineContext, role: string): StageAttempt | undefined {
  return [context.stageAttempt, ...context.stageEarlier].find((a) => a?.role === role) ?? undefined;
}

function describePlanned(task: TaskState, context: PipelineContext): Detail {
  const role = task.role !== context.agentType ? ` as ${task.role}` : '';
  const deps = task.def.blockedBy?.length ? `after ${listOf(task.def.blockedBy)}` : 'no dependencies';
  const files = task.def.files?.length ? `; owns ${toEvidence(listOf(task.def.files))}` : '';
  return { text: `${task.id} "${toEvidence(task.def.title)}" → ${task.worker}${role}; ${deps}${files}`, key: task.id };
}

function countWorkers(tasks: TaskState[]): string {
  const counts = new Map<string, number>();
  for (const task of tasks) counts.set(task.worker, (counts.get(task.worker) ?? 0) + 1);
  if (counts.size > LISTED_WORKERS) return `across ${counts.size} workers, at most ${Math.max(...counts.values())} each`;
  return listOf([...counts].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })).map(([w, n]) => `${w}: ${n}`));
}

// What the planner set aside: the approach of the previous ralph iteration, when there is one.
function describeRejectedApproach(context: PipelineContext, planned: number): Section {
  const previous = context.iterations.at(-1);
  const planner = stageAttemptOf(context, 'planner');
  const failures = planner && planner.failures > 0 ? [{ text: `${countOf(planner.failures, 'planner attempt')} failed before this plan` }] : [];
  if (!previous) {
    return { headline: `no alternative plan recorded; the plan holds ${countOf(planned, 'task')}, none cut for team.maxTasks (${context.limits.maxTasks})`, details: failures };
  }
  return {
    headline: `iteration ${previous.iteration}'s approach: ${previous.outcome} after ${countOf(previous.loops, 'fix loop')}`,
    details: [
      ...previous.reviewReasons.map((reason) => ({ text: `review: ${toEvidence(reason)}` })),
      ...previous.defects.map((d) => ({ text: `${d.id}: ${toEvidence(d.description)}`, key: d.id })),
      ...failures,
    ],
  };
}

function describeHandoffFiles(context: PipelineContext): Section {
  const count = context.handoffs.length;
  const headline = count === 0 ? 'no handoff before this one' : `${countOf(count, 'handoff')} so far, all in the next stage's prompts`;
  return { headline, details: describeHandoffs(context) };
}

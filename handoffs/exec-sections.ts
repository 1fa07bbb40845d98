// What the team-exec and team-fix handoffs say: the work of an exec pass and the fixes planned.
import type { PipelineContext, TaskState } from '../machines/types.js';
import { describeArtifacts, describeCompleted, describeFailed, describeWorkerFailures, isBlocked, listPassTasks, listTasks, summarizeFiles } from './facts.js';
import type { Detail, Section, Sections } from './layout.js';
import { countOf, listOf, toEvidence } from './text.js';

// The team-exec handoff: what this pass completed, what failed and why, and its files.
export function makeExecSections(context: PipelineContext): Sections {
  const tasks = listPassTasks(context);
  const done = tasks.filter((t) => t.status === 'completed');
  const failed = tasks.filter((t) => t.status === 'failed' && !isBlocked(t));
  const blocked = tasks.filter(isBlocked);
  // A candidate's files reach the work only through its select task, when it is the one picked.
  const artifacts = describeArtifacts(tasks.filter((t) => t.def.candidateOf === undefined));
  const pass = context.loop === 0 ? 'exec pass 1 (the plan)' : `exec pass ${context.loop + 1} (fix loop ${context.loop})`;
  const gates = context.gates.length > 0 ? `gate commands ${listOf(context.gates)}` : 'no gate commands configured';
  return {
    Decided: { headline: `${pass}: ${done.length} of ${countOf(tasks.length, 'task')} completed`, details: done.map(describeCompleted) },
    Rejected: {
      headline: failed.length + blocked.length === 0 ? 'no task failed or was blocked in this pass' : `${failed.length} failed, ${blocked.length} blocked`,
      details: [...failed, ...blocked].map((t) => describeFailed(t, context)),
    },
    Risks: describeAttemptRisks(context, tasks),
    Files: { headline: summarizeFiles(artifacts.length, context, 'from this pass'), details: artifacts },
    Remaining: {
      headline: `team-verify: ${gates}, then the verifier's verdict`,
      details: failed.length + blocked.length > 0 ? [{ text: `verify starts with ${countOf(failed.length + blocked.length, 'task')} not done: ${listOf([...failed, ...blocked].map((t) => t.id))}` }] : [],
    },
  };
}

// The team-fix handoff: one fix task per defect for the next exec pass.
export function makeFixSections(context: PipelineContext): Sections {
  const { loop, limits, defects } = context;
  const fixes = listPassTasks(context).filter((t) => t.kind === 'fix');
  const earlierFailed = listTasks(context).filter((t) => t.pass < loop && t.status === 'failed');
  const fromReview = defects.length > 0 && defects.every((d) => d.id.startsWith('review-'));
  const owners = defects.flatMap((d) => findTask(context, d.task));
  const artifacts = describeArtifacts(owners);
  return {
    Decided: {
      headline: `fix loop ${loop} of ${limits.maxFixLoops}: ${countOf(fixes.length, 'fix task')} from ${countOf(defects.length, 'defect')}`,
      details: fixes.map((t) => ({ text: `${t.id} → ${t.worker}: ${toEvidence(t.def.description)}`, key: t.id })),
    },
    Rejected: {
      headline: `${fromReview ? 'the architect rejected' : 'team-verify failed'} the work of exec pass ${loop}${earlierFailed.length > 0 ? `; ${countOf(earlierFailed.length, 'task')} ended failed` : ''}`,
      details: earlierFailed.map((t) => describeFailed(t, context)),
    },
    Risks: {
      headline: `${countOf(limits.maxFixLoops - loop, 'fix loop')} left after this one`,
      details: [
        ...defects.filter((d) => !d.task).map((d) => ({ text: `${d.id} names no task: its fix starts from the description alone`, key: d.id })),
        ...describeWorkerFailures(context),
      ],
    },
    Files: { headline: summarizeFiles(artifacts.length, context, 'of the tasks the defects name'), details: artifacts },
    Remaining: {
      headline: `team-exec runs ${countOf(fixes.length, 'fix task')}, then team-verify checks fix loop ${loop} of ${limits.maxFixLoops}`,
      details: [],
    },
  };
}

// Tasks that completed only after retries, failing workers and completions that named no file.
function describeAttemptRisks(context: PipelineContext, tasks: TaskState[]): Section {
  const retried = tasks.filter((t) => t.status === 'completed' && t.failures > 0);
  const workers = describeWorkerFailures(context);
  const bare = tasks.filter((t) => t.status === 'completed' && t.artifacts.length === 0);
  const details: Detail[] = [
    ...(bare.length > 0 ? [{ text: `completed without naming an artifact: ${listOf(bare.map((t) => t.id))}` }] : []),
    ...(retried.length > 0 ? [{ text: `completed only after retries: ${listOf(retried.map((t) => `${t.id} (${t.failures})`))}` }] : []),
    ...workers,
  ];
  const headline = retried.length + workers.length === 0 ? 'no attempt failed in this pass' : `${retried.length === 0 ? 'no task' : countOf(retried.length, 'task')} completed only after retries; ${countOf(workers.length, 'worker')} with failed attempts`;
  return { headline, details };
}

// The task a defect names; in ralph iteration k >= 2 the verifier may omit the `i<k>.` prefix.
function findTask(context: PipelineContext, id: string | undefined): TaskState[] {
  if (!id) return [];
  const task = context.tasks[id] ?? context.tasks[`i${context.iteration}.${id}`];
  return task ? [task] : [];
}

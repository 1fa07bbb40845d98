// What the handoffs of a failed or cancelled run say: why it ends, what ran, what is left undone.
import type { PipelineContext, Stage, TaskState } from '../machines/types.js';
import { describeArtifacts, describeCompleted, describeFailed, listTasks, summarizeFiles } from './facts.js';
import type { Detail, Section, Sections } from './layout.js';
import { countOf, toEvidence, toLine } from './text.js';

// The handoff of a stage whose agent failed every attempt: the run ends failed.
export function makeFailingSections(context: PipelineContext, stage: Stage): Sections {
  const attempt = context.stageAttempt;
  const tasks = listTasks(context);
  const failed = tasks.filter((t) => t.status === 'failed');
  const done = tasks.filter((t) => t.status === 'completed');
  const role = attempt?.role ?? 'agent';
  return {
    Decided: {
      headline: `stop the run: ${stage} failed after ${attempt?.failures ?? 0} of ${context.limits.maxTaskAttempts} attempts`,
      details: [{ text: `reason: ${toLine(context.reason || `${stage} failed`)}` }],
    },
    Rejected: {
      headline: `${countOf(attempt?.failures ?? 0, 'failed attempt')} of the ${role}, none accepted`,
      details: attempt ? [{ text: `last attempt ${attempt.id}#a${attempt.attempt}: ${toEvidence(attempt.evidence)}`, key: attempt.id }] : [],
    },
    Risks: {
      headline: `${stage} (${role}) was running; ${countOf(done.length, 'task')} completed before it${done.length > 0 && stage !== 'ralph-review' ? ', unverified' : ''}`,
      details: failed.map((t) => describeFailed(t, context)),
    },
    Files: describeFiles(context, tasks),
    Remaining: describeUndone(context, tasks, 'failed'),
  };
}

// The team-cancel handoff: the stage that was cancelled, the attempts it stopped, what is left.
export function makeCancelSections(context: PipelineContext, stage: Stage): Sections {
  const tasks = listTasks(context);
  const stopped = tasks.filter((t) => t.status === 'interrupted' || t.status === 'running');
  const attempt = context.stageAttempt;
  const stoppedStage = attempt && (attempt.status === 'interrupted' || attempt.status === 'running') ? [attempt] : [];
  const cut: Detail[] = [
    ...stoppedStage.map((a) => ({ text: `${a.id}#a${a.attempt} (${a.role}) stopped before it finished`, key: a.id })),
    ...stopped.map((t) => ({ text: `${t.id}#a${t.attempt} (${t.worker}) stopped before it finished`, key: t.id })),
  ];
  return {
    Decided: {
      headline: `cancel the run during ${stage}${context.cancelForce ? ' (forced, no grace period)' : ''}: ${context.reason || 'cancelled by request'}`,
      details: tasks.filter((t) => t.status === 'completed').map(describeCompleted),
    },
    Rejected: { headline: cut.length === 0 ? 'no attempt was running when the cancel came' : `${countOf(cut.length, 'attempt')} stopped`, details: cut },
    Risks: {
      headline: stopped.length === 0 ? 'no task attempt was cut off mid-way' : `${countOf(stopped.length, 'task')} cut off mid-way may have left partial edits`,
      details: stopped.map((t) => ({ text: `${t.id}: ${t.artifacts.length > 0 ? `touched ${t.artifacts.join(', ')}` : toEvidence(t.evidence)}`, key: t.id })),
    },
    Files: describeFiles(context, tasks),
    Remaining: describeUndone(context, tasks, 'cancelled'),
  };
}

function describeFiles(context: PipelineContext, tasks: TaskState[]): Section {
  const artifacts = describeArtifacts(tasks);
  return { headline: summarizeFiles(artifacts.length, context), details: artifacts };
}

// Tasks not completed, or the whole run task when no plan exists yet.
function describeUndone(context: PipelineContext, tasks: TaskState[], outcome: string): Section {
  const undone = tasks.filter((t) => t.status !== 'completed');
  if (tasks.length === 0) {
    return { headline: `the run ends ${outcome} before any task was planned`, details: [{ text: `run task left undone: "${toEvidence(context.task)}"` }] };
  }
  return {
    headline: `the run ends ${outcome}; ${undone.length} of ${countOf(tasks.length, 'task')} not completed`,
    details: undone.map((t) => ({ text: `${t.id} "${toEvidence(t.def.title)}": ${t.status}`, key: t.id })),
  };
}

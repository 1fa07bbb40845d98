// The scripted model of the progress notes run: a run task carrying NOTES_MARK keeps the plain plan
// (t1 and t2 in parallel); the noted task's attempt calls team_progress NOTE_COUNT times, then
// writes its file with the CLI's own tool and reports through team_done. The other task keeps the
// plain exec steps, and the verify passes at once. How long the model thinks between the calls is
// the test's (server.hold).
import type { PromptFacts, Step } from './scenario.js';
import { toolStep } from './team-tools.js';

// The words of a run task that ask for the progress notes scenario.
export const NOTES_MARK = 'noting its progress';
// The task that notes its progress.
export const NOTED_TASK = 't1';
// How many notes it makes.
export const NOTE_COUNT = 6;

// The text of the noted task's `n`th note (from 1).
export function progressNote(n: number): string {
  return `${NOTED_TASK}: step ${n} of ${NOTE_COUNT} done`;
}

// The noted task's steps, or undefined when the scenario does not apply (or the request offers
// no team tools).
export function noteSteps(facts: PromptFacts, toolNames: string[], file: { path: string; relative: string; content: string }): Step[] | undefined {
  if (!facts.notes || facts.stage !== 'team-exec' || facts.taskId !== NOTED_TASK) return undefined;
  const notes = Array.from({ length: NOTE_COUNT }, (_, i) => toolStep(toolNames, 'team_progress', { text: progressNote(i + 1) }));
  const done = toolStep(toolNames, 'team_done', { summary: `wrote ${file.relative}`, artifacts: [file.relative], evidence: 'progress notes', next: '' });
  const steps = [...notes, { kind: 'write', path: file.path, content: file.content } satisfies Step, done];
  return steps.every((step) => step !== undefined) ? (steps as Step[]) : undefined;
}

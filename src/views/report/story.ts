// What the report reads from a run's log beside the fold: each verify's and review's verdict with
// its defects and gates, and the restart and cancel markers of the time axis.
import type { Defect, GateResult } from '../../log/schema.js';
import { prefixFor } from '../../../machines/plan.js';
import type { RunFiles } from '../../log/read.js';

// The verdict an attempt of team-verify or ralph-review gave, with what it found.
export interface ReportVerdict {
  verdict: 'pass' | 'fail' | 'approve' | 'reject';
  defects: Defect[];
  reasons: string[];
}

// A gate command of a verify pass: how it ended.
export type ReportGate = Pick<GateResult, 'command' | 'exitCode' | 'timedOut' | 'durationMs'>;

// A labelled line across the timeline.
export interface ReportMarker {
  kind: 'restart' | 'cancel';
  at: number;
  label: string;
}

export interface RunStory {
  /** By `task#attempt`. */
  verdicts: Record<string, ReportVerdict>;
  /** By verify task id: the gates run before that task's verifier. */
  gates: Record<string, ReportGate[]>;
  markers: ReportMarker[];
}

// Reads the story's facts from the events, in the order written.
export function readStory(files: Pick<RunFiles, 'events'>): RunStory {
  const story: RunStory = { verdicts: {}, gates: {}, markers: [] };
  for (const e of files.events) {
    switch (e.event) {
      case 'verify_result':
        story.verdicts[`${e.task_id}#${e.attempt}`] = { verdict: e.verdict, defects: e.defects, reasons: [] };
        break;
      case 'review_result':
        story.verdicts[`${e.task_id}#${e.attempt}`] = { verdict: e.verdict, defects: [], reasons: e.reasons };
        break;
      case 'gates_result':
        story.gates[verifyTaskId(e.iteration, e.pass)] = e.gates.map(({ command, exitCode, timedOut, durationMs }) => ({ command, exitCode, timedOut, durationMs }));
        break;
      case 'run_resumed':
        story.markers.push({ kind: 'restart', at: Date.parse(e.at), label: `restart: team resume (pid ${e.pid})` });
        break;
      case 'cancel_requested':
        story.markers.push({ kind: 'cancel', at: Date.parse(e.at), label: `cancel: ${e.by}${e.force ? ' --force' : ''}` });
        break;
      default:
        break;
    }
  }
  return story;
}

// The verify task whose verifier runs after the gates of pass `pass` of iteration `iteration`
// (as machines/steps.ts names it).
function verifyTaskId(iteration: number, pass: number): string {
  return `${prefixFor(iteration)}verify-${pass}`;
}

// Whether a verify or review attempt found the work wanting: a fail or reject verdict, or a gate
// that did not exit 0.
export function verdictFailed(verdict: ReportVerdict | undefined, gates: ReportGate[] | undefined): boolean {
  return verdict?.verdict === 'fail' || verdict?.verdict === 'reject' || (gates ?? []).some((g) => g.exitCode !== 0);
}

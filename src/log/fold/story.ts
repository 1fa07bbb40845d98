// The story of a run's fold beside its tasks: verdicts, gate runs, restart and cancel markers, the
// stages entered, the handoffs written and the milestones done, in the order written.
import type { Defect, GateResult } from '../schema.js';

// The verdict an attempt of team-verify or ralph-review gave, with what it found.
export interface Verdict {
  verdict: 'pass' | 'fail' | 'approve' | 'reject';
  defects: Defect[];
  reasons: string[];
}

// A gate command of a verify pass: how it ended.
export type GateRun = Pick<GateResult, 'command' | 'exitCode' | 'timedOut' | 'durationMs'>;

// A labelled moment of the run: a restart (team resume) or a cancel request.
export interface Marker {
  kind: 'restart' | 'cancel';
  at: number;
  label: string;
}

export interface RunStory {
  /** By `task#attempt`. */
  verdicts: Record<string, Verdict>;
  /** The gates of each verify pass, by `<iteration>:<pass>`. */
  gates: Record<string, GateRun[]>;
  markers: Marker[];
  /** Each stage entered, until the next one or the run's end. */
  stages: Array<{ stage: string; iteration: number; loop: number; at: string; until?: string }>;
  /** Each handoff_written; `text` is absent in older logs. */
  handoffs: Array<{ stage: string; path: string; sha256: string; text?: string }>;
  /** Stages completed or skipped and the run's end, as the checkpoint's recently_done tells them. */
  milestones: Array<{ at: string; action: string }>;
  /** Stage routing's decisions (routing_decided), in words, in the order written. */
  routing: Array<{ stage: string; iteration: number; loop: number; at: string; text: string; role: string; agent: string; task?: string }>;
}

// The story of a log with no event yet.
export function newStory(): RunStory {
  return { verdicts: {}, gates: {}, markers: [], stages: [], handoffs: [], milestones: [], routing: [] };
}

// The key of a verify pass's gates in RunStory.gates.
export function gatesKey(iteration: number, pass: number): string {
  return `${iteration}:${pass}`;
}

// A stage entered: the one before it ends there.
export function enterStage(story: RunStory, stage: { stage: string; iteration: number; loop: number; at: string }): void {
  const last = story.stages.at(-1);
  if (last) last.until = stage.at;
  story.stages.push({ stage: stage.stage, iteration: stage.iteration, loop: stage.loop, at: stage.at });
}

// The run ended (or ended again): its last stage ends there, and it is a milestone.
export function endStory(story: RunStory, event: { event: string; at: string }): void {
  const last = story.stages.at(-1);
  if (last) last.until = event.at;
  story.milestones.push({ at: event.at, action: event.event.replace('_', ' ') });
}

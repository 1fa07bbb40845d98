// What the report reads of the fold's story (src/log/fold-story.ts): each verify's gates by the task
// of its verifier, and whether a verdict found the work wanting.
import { prefixFor } from '../../../machines/plan.js';
import type { GateRun, Marker, RunStory, Verdict } from '../../log/fold-story.js';

export type { GateRun as ReportGate, Marker as ReportMarker, Verdict as ReportVerdict };

// The gates of each verify pass by the verify task whose verifier runs after them (as machines/steps.ts names it).
export function gatesByTask(story: RunStory): Record<string, GateRun[]> {
  const byTask: Record<string, GateRun[]> = {};
  for (const [key, gates] of Object.entries(story.gates)) {
    const [iteration, pass] = key.split(':').map(Number) as [number, number];
    byTask[`${prefixFor(iteration)}verify-${pass}`] = gates;
  }
  return byTask;
}

// Whether a verify or review attempt found the work wanting: a fail or reject verdict, or a gate
// that did not exit 0.
export function verdictFailed(verdict: Verdict | undefined, gates: GateRun[] | undefined): boolean {
  return verdict?.verdict === 'fail' || verdict?.verdict === 'reject' || (gates ?? []).some((g) => g.exitCode !== 0);
}

// `team scale N`: the workers of a live run change. Up adds workers with new names, never one used
// before; down drains idle workers first (the highest-numbered first), then busy ones, which finish
// their attempt and take no more. Pure: the step records the new roster before anything starts.
import type { NewEvent, PipelineContext, PipelineEvent } from './types.js';

// What a scale changes and records (a Step of steps.ts, which this file cannot import: steps imports it).
interface ScaleStep {
  context?: Partial<PipelineContext>;
  records: NewEvent[];
}

// The workers that may take work: the roster once the run was scaled, else worker-1..N.
export function rosterOf(context: Pick<PipelineContext, 'workers' | 'roster'>): string[] {
  return context.roster ?? Array.from({ length: context.workers }, (_, i) => `worker-${i + 1}`);
}

// The number of the worker a scale up names next: one past every name used so far.
function nextNumber(context: Pick<PipelineContext, 'workers' | 'roster' | 'named'>): number {
  return (context.named ?? context.workers) + 1;
}

// The run's workers become `event.workers`: recorded (workers_changed), then dispatch may start more.
export function scaleWorkers(context: PipelineContext, event: Extract<PipelineEvent, { type: 'workers.scaled' }>): ScaleStep {
  const roster = rosterOf(context);
  const target = event.workers;
  if (target === roster.length) return { records: [{ event: 'workers_changed', workers: target, roster, added: [], drained: [] }] };
  if (target > roster.length) {
    const first = nextNumber(context);
    const added = Array.from({ length: target - roster.length }, (_, i) => `worker-${first + i}`);
    const next = [...roster, ...added];
    return { context: { roster: next, named: first + added.length - 1, workers: target }, records: [{ event: 'workers_changed', workers: target, roster: next, added, drained: [] }] };
  }
  const busy = new Set(context.taskIndex.running.map((id) => context.tasks[id]!.worker));
  const byNumberDown = [...roster].reverse();
  const order = [...byNumberDown.filter((w) => !busy.has(w)), ...byNumberDown.filter((w) => busy.has(w))];
  const drained = order.slice(0, roster.length - target);
  const next = roster.filter((w) => !drained.includes(w));
  return {
    context: { roster: next, named: context.named ?? context.workers, workers: target },
    records: [{ event: 'workers_changed', workers: target, roster: next, added: [], drained }],
  };
}

// The attempts of a run as the live view shows them: one lane per worker (its latest attempt), and
// every attempt's state for the plain lines, so that none that finished between two looks is missed.
import type { RunView } from '../../log/fold/fold.js';
import { attemptSeconds } from '../../log/fold/clock.js';
import { parseLogTime } from '../../log/time.js';

// One attempt's state; `worker` is absent until the attempt's worker is recorded (spawned or taken).
export interface AttemptFact {
  worker?: string;
  task: string;
  /** The plan's title of the task; empty for a stage's own task (plan, verify). */
  title: string;
  attempt: number;
  stage: string;
  status: string;
}

// A worker's lane: its latest attempt, how long it ran, and the last line of its output.
export interface Lane extends AttemptFact {
  worker: string;
  elapsedMs: number;
  lastLine: string;
}

// Every attempt of every task, in the order the view holds them.
export function attemptFacts(view: RunView): AttemptFact[] {
  return view.tasks.flatMap((task) =>
    task.attempts.map((a) => ({ ...(a.worker ? { worker: a.worker } : {}), task: task.id, title: task.title ?? '', attempt: a.attempt, stage: a.stage, status: statusWord(a) })),
  );
}

// One lane per worker that has run an attempt, holding its latest; an attempt with no worker
// recorded yet has no lane (a lane is a worker's, never a stage's).
export function lanesOf(view: RunView, tail: (task: string, attempt: number) => string, now: number): Lane[] {
  const latest = new Map<string, Lane & { start: number }>();
  for (const task of view.tasks) {
    for (const a of task.attempts) {
      const worker = a.worker;
      if (!worker) continue;
      const start = a.startedAt ? parseLogTime(a.startedAt) : now;
      const seen = latest.get(worker);
      if (seen && seen.start > start) continue;
      const elapsed = attemptSeconds(a, now) ?? 0;
      latest.set(worker, { worker, task: task.id, title: task.title ?? '', attempt: a.attempt, stage: a.stage, status: statusWord(a), elapsedMs: elapsed * 1000, lastLine: '', start });
    }
  }
  const lanes = [...latest.values()].sort((x, y) => x.worker.localeCompare(y.worker, undefined, { numeric: true }));
  return lanes.map(({ start: _s, ...lane }) => ({ ...lane, lastLine: tail(lane.task, lane.attempt) }));
}

// An attempt's status in one word: a rate limit's interruption is told as such.
export function statusWord(a: { status: string; rateLimited?: true }): string {
  return a.status === 'interrupted' && a.rateLimited ? 'rate-limited' : a.status;
}

// Who a message still reaches, from the fold's view: the current roster of workers, the tasks not
// ended, and the messages that never reached their reader (its worker drained, its task or run ended).
import type { RunView } from './fold/fold.js';
import type { TeamMessage } from './fold/team.js';

// The workers that take work now: the roster of the latest change of scale, else worker-1..N.
export function currentRoster(view: Pick<RunView, 'run' | 'pipeline'>): string[] {
  const workers = typeof view.run.workers === 'number' ? view.run.workers : 0;
  return view.pipeline.roster ?? Array.from({ length: workers }, (_, i) => `worker-${i + 1}`);
}

// A task that has ended: no attempt of it will run again, so none will read a message to it.
export function isTaskEnded(task: RunView['tasks'][number]): boolean {
  return task.status === 'completed';
}

export interface Undelivered {
  message: TeamMessage;
  /** Why nobody will read it now. */
  why: string;
}

// The messages to a worker or a task that nobody read and nobody will: a worker's, handed at its tool
// calls, once it left the roster with no attempt running (or the run ended); a task's, also shown in
// the prompt of an attempt started after it, once the task or the run ended.
export function undeliveredMessages(view: Pick<RunView, 'run' | 'pipeline' | 'tasks' | 'team' | 'endedAt'>): Undelivered[] {
  const roster = new Set(currentRoster(view));
  const running = new Set(view.tasks.flatMap((t) => t.attempts.filter((a) => a.status === 'running').map((a) => a.worker)));
  const ended = view.endedAt !== undefined;
  const out: Undelivered[] = [];
  view.team.messages.forEach((m, i) => {
    if (m.to === 'lead') return;
    const task = view.tasks.find((t) => t.id === m.to);
    if (task) {
      // In the prompt of an attempt started after it, or handed at a tool call (never to its own sender).
      const read = task.attempts.some((a) => (a.startedAt !== undefined && a.startedAt > m.at) || (a.worker !== undefined && a.worker !== m.from && (view.team.reads.get(a.worker) ?? 0) > i));
      const gone = ended ? 'the run ended' : isTaskEnded(task) && !task.attempts.some((a) => a.status === 'running') ? `task ${task.id} ended` : undefined;
      if (!read && gone) out.push({ message: m, why: gone });
      return;
    }
    if ((view.team.reads.get(m.to) ?? 0) > i) return;
    const gone = !roster.has(m.to) && !running.has(m.to) ? `${m.to} was drained` : ended ? 'the run ended' : undefined;
    if (gone) out.push({ message: m, why: gone });
  });
  return out;
}

// The workers a scale down drained that still run an attempt (they take no more): "worker-3 (t5 a1)".
export function drainingWorkers(view: Pick<RunView, 'run' | 'pipeline' | 'tasks'>): Array<{ worker: string; task: string; attempt: number }> {
  if (view.pipeline.roster === undefined) return [];
  const roster = new Set(view.pipeline.roster);
  return view.tasks.flatMap((t) => t.attempts.filter((a) => a.status === 'running' && a.worker !== undefined && !roster.has(a.worker)).map((a) => ({ worker: a.worker!, task: t.id, attempt: a.attempt })));
}

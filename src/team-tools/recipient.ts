// Who a message can go to, checked against the fold of the log.
import type { FoldState, RunView } from '../log/fold/fold.js';
import { currentRoster, isTaskEnded } from '../log/reach.js';

// Whom a message can go to: the lead, a worker the run has had (the roster now, or one a task was
// assigned to), or one of its tasks. A `team say` checked the roster when it was sent; by the time
// the writer records it the worker may have been drained, and the message shows as undelivered.
export function recipientProblem(st: Readonly<FoldState>, to: string): string | undefined {
  if (to === 'lead' || st.tasks.has(to) || st.assigned.has(to)) return undefined;
  const workers = new Set([...st.assigned.values(), ...(st.pipeline.roster ?? Array.from({ length: st.started?.workers ?? 0 }, (_, i) => `worker-${i + 1}`))]);
  if (workers.has(to)) return undefined;
  return `--to: ${to} is neither lead, a worker of the run (${[...workers].sort().join(', ') || 'none'}) nor one of its tasks`;
}

// Why a message from the person to `to` would never be read (`team say`), with what it can go to:
// a worker of the current roster, or a task not ended. Undefined: it can go.
export function sayProblem(view: Pick<RunView, 'run' | 'pipeline' | 'tasks'>, to: string): string | undefined {
  const roster = currentRoster(view);
  const task = view.tasks.find((t) => t.id === to);
  if (roster.includes(to) || (task && !isTaskEnded(task))) return undefined;
  const open = view.tasks.filter((t) => !isTaskEnded(t)).map((t) => t.id);
  const why = task ? `task ${to} has ended (${task.status}): no attempt of it will read the message`
    : /^worker-\d+$/.test(to) ? `${to} is not a worker of run ${view.run.run_id} now`
      : `${to} is neither a worker of run ${view.run.run_id} nor one of its tasks`;
  return `--to: ${why}; send it to a worker (${roster.join(', ') || 'none'}) or a task not ended (${open.join(', ') || 'none'})`;
}

// Who a message can go to, checked against the fold of the log.
import type { FoldState } from '../log/fold.js';

// Whom a message can go to: the lead, a worker of the run (worker-N), or one of its tasks.
export function recipientProblem(st: Readonly<FoldState>, to: string): string | undefined {
  if (to === 'lead' || st.tasks.has(to) || st.assigned.has(to)) return undefined;
  if ([...st.assigned.values()].includes(to) || /^worker-\d+$/.test(to)) return undefined;
  return `--to: ${to} is neither lead, a worker (worker-N) nor a task of the run`;
}

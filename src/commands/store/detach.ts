// `--detach` for a run on the PostgreSQL store: the child drives the run once it holds the run's
// writer lock there, and the run exists once the store has it.
import type { DetachRequest } from '../../run/detach.js';
import { hasWriter } from '../../store/pg-writer-lock.js';
import { openStore } from './open.js';

// The store's side of detachRun: the writer lock and the run's row.
export async function storeLog(url: string, runId: string): Promise<NonNullable<DetachRequest['log']>> {
  const store = await openStore(url, 'detach');
  return {
    driven: async () => hasWriter(store.db, runId),
    exists: () => store.hasRun(runId),
    close: () => store.close(),
  };
}

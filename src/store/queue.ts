// What a store that queues attempts for team workers (PostgreSQL) gives the run's writer: the link
// it drives the run through. The files queue nothing: their attempts run on this machine.
import type { StoreLink } from './pg/link.js';
import type { PgStore } from './pg/store.js';
import type { RunStore } from './types.js';

export type { StoreLink };

export interface QueueStore {
  /** pg-boss and the run's writer lock (kept through an outage of up to `outageMs`); the store is closed when they cannot be had. */
  openLink(runId: string, outageMs: number): Promise<StoreLink>;
  /** How the run ended (its last end record), or undefined while it has not. */
  endOf(runId: string): Promise<'completed' | 'failed' | 'cancelled' | undefined>;
  /** Asks the run's writer, and the team workers running its attempts, to cancel it (heard at once). */
  requestCancel(runId: string, body: { by: string; force: boolean; grace_ms: number }): Promise<void>;
}

// The queue of the store a run is in: PostgreSQL's, or none (the files').
export function queueOf(store: RunStore): QueueStore | undefined {
  if (store.kind !== 'postgres') return undefined;
  const pg = store as PgStore;
  return {
    openLink: async (runId, outageMs) => (await import('./pg/link.js')).openLink(pg, runId, outageMs),
    endOf: (runId) => pg.endOf(runId),
    requestCancel: async (runId, body) => void (await (await import('./pg/requests.js')).writeRequest(pg, runId, 'cancel', body)),
  };
}

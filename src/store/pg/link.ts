// A run's writer's link to the PostgreSQL store: the run's writer lock (kept through an outage),
// pg-boss, and the sink its steps commit through.
import type PgBoss from 'pg-boss';
import { PgEventGroup } from './event-group.js';
import { KeptWriterLock, lastEventName } from './kept-lock.js';
import { openQueue } from './queue.js';
import type { PgStore } from './store.js';
import { writerName } from './writer-lock.js';

// What a run's writer holds of the PostgreSQL store, when the run's log is there: the store, pg-boss,
// the writer lock (kept through an outage) and the sink its steps commit through. The session holds
// it; the queued face of an attempt (src/remote/) reaches the team workers through it.
export interface StoreLink {
  url: string;
  store: PgStore;
  boss: PgBoss;
  lock: KeptWriterLock;
  sink: PgEventGroup;
}

// pg-boss and the run's writer lock (kept through an outage), on the store; the store is closed when
// they cannot be had.
export async function openLink(store: PgStore, runId: string, outageMs: number): Promise<StoreLink> {
  const name = writerName(runId);
  try {
    const lock = new KeptWriterLock(store.url, runId, await store.lockWriter(runId, name), () => lastEventName(store.db, runId), outageMs);
    try {
      lock.noteCommitted(await lastEventName(store.db, runId));
      const boss = await openQueue(store.url, name);
      return { url: store.url, store, boss, lock, sink: new PgEventGroup(store, boss, runId, lock) };
    } catch (error) {
      await lock.release();
      throw error;
    }
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}

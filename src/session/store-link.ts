// What a run's writer holds of the PostgreSQL store, when the run's log is there: the store, pg-boss,
// the writer lock (kept through an outage) and the sink its steps commit through. The session holds
// it; the queued face of an attempt (src/remote/) reaches the team workers through it.
import type PgBoss from 'pg-boss';
import type { PgEventGroup } from '../store/pg/event-group.js';
import type { PgStore } from '../store/pg/store.js';
import type { KeptWriterLock } from '../store/pg/kept-lock.js';

export interface StoreLink {
  url: string;
  store: PgStore;
  boss: PgBoss;
  lock: KeptWriterLock;
  sink: PgEventGroup;
}

// One writer per run across machines: a session advisory lock on a dedicated connection. The
// server releases it when that connection ends, however its process ended (kill -9, a lost machine).
import { hostname } from 'node:os';
import type pg from 'pg';
import { LockedError } from '../../sys/errors.js';
import { connectClient } from './connect.js';

// The lock's key, in SQL: one bigint per run id.
const KEY = "hashtextextended('teamline:' || $1, 0)";

// The backend that holds a run's lock, as pg_locks and pg_stat_activity show it.
const HOLDER = `
SELECT a.pid, a.application_name, coalesce(host(a.client_addr), 'a local socket') AS client
FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid::bigint = ((${KEY}) >> 32) & 4294967295 AND l.objid::bigint = (${KEY}) & 4294967295`;

// A run's writer lock, held until release() or until its connection ends.
export interface WriterLock {
  runId: string;
  /** The backend pid of the lock's connection. */
  backendPid: number;
  /** Settles when the connection ends before release(): the lock is gone, writing must stop. */
  lost: Promise<Error>;
  release(): Promise<void>;
}

// The name a writer's connection shows in pg_stat_activity.
export function writerName(runId: string): string {
  return `teamline writer of ${runId} on ${hostname()} pid ${process.pid}`;
}

// Takes the run's writer lock, or refuses naming the backend that holds it (LockedError, exit 2).
export async function takeWriterLock(url: string, runId: string, applicationName = writerName(runId)): Promise<WriterLock> {
  const client = await connectClient(url, applicationName);
  try {
    for (let look = 0; look < 3; look++) {
      const taken = await client.query<{ ok: boolean; pid: number }>(`SELECT pg_try_advisory_lock(${KEY}) AS ok, pg_backend_pid() AS pid`, [runId]);
      if (taken.rows[0]!.ok) return holding(client, runId, taken.rows[0]!.pid);
      const holder = await client.query<{ pid: number; application_name: string; client: string }>(HOLDER, [runId]);
      const h = holder.rows[0];
      // A holder gone between the two queries: the lock is free again, look once more.
      if (h) throw new LockedError(`run ${runId} has a writer already: PostgreSQL backend pid ${h.pid} ("${h.application_name}", from ${h.client}) holds its lock; the server frees it when that connection ends`);
    }
    throw new LockedError(`run ${runId} has a writer already: its lock is held by a backend that could not be named`);
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
}

function holding(client: pg.Client, runId: string, backendPid: number): WriterLock {
  let released = false;
  const lost = new Promise<Error>((resolve) => {
    client.on('error', (error) => resolve(error));
    client.on('end', () => {
      if (!released) resolve(new Error(`the connection that held the writer lock of run ${runId} ended`));
    });
  });
  const release = async () => {
    if (released) return;
    released = true;
    await client.query(`SELECT pg_advisory_unlock(${KEY})`, [runId]).catch(() => undefined);
    await client.end().catch(() => undefined);
  };
  return { runId, backendPid, lost, release };
}

// Whether a writer holds the run's lock now: the live view's "does an orchestrator drive this run".
export async function hasWriter(db: pg.Pool | pg.ClientBase, runId: string): Promise<boolean> {
  const holder = await db.query(HOLDER, [runId]);
  return (holder.rowCount ?? 0) > 0;
}

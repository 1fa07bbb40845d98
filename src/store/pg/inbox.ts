// The PostgreSQL store's writer inbox: a row per request in `teamline.inbox` (not append-only: the
// writer deletes a request once its event is in the log), announced on the runs' channel.
import type { InboxRead, NewInboxRequest } from '../inbox.js';
import { UsageError } from '../../sys/errors.js';
import { RUN_CHANNEL } from './channel.js';
import type { Transactor } from './transactor.js';


// The table; a key is posted once per run (a retried post is the same row).
export const INBOX_TABLE = `
CREATE TABLE IF NOT EXISTS teamline.inbox (
  id bigserial PRIMARY KEY,
  run_id text NOT NULL REFERENCES teamline.runs (run_id),
  key text NOT NULL,
  kind text NOT NULL,
  body json NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (run_id, key)
);`;

// Posts the request (once per key) and wakes the run's writer on commit.
export async function postPgRequest(store: Transactor, runId: string, request: NewInboxRequest): Promise<void> {
  await store.transaction(async (client) => {
    await client
      .query('INSERT INTO teamline.inbox (run_id, key, kind, body) VALUES ($1, $2, $3, $4::json) ON CONFLICT (run_id, key) DO NOTHING', [runId, request.key, request.kind, JSON.stringify(request.body)])
      .catch((error: { code?: string }) => {
        throw error.code === '23503' ? new UsageError(`--run: no run ${runId} in the store`) : error;
      });
    await client.query('SELECT pg_notify($1, $2)', [RUN_CHANNEL, runId]);
  });
}

// The run's requests waiting, in the order posted.
export async function readPgRequests(store: Transactor, runId: string): Promise<InboxRead> {
  const rows = await store.transaction((client) =>
    client.query<{ id: string; key: string; kind: string; body: Record<string, unknown>; at: Date }>('SELECT id, key, kind, body, at FROM teamline.inbox WHERE run_id = $1 ORDER BY id', [runId]),
  );
  return { requests: rows.rows.map((r) => ({ id: r.id, key: r.key, kind: r.kind, body: r.body, at: r.at.toISOString() })), unreadable: [] };
}

// Removes a request taken.
export async function removePgRequest(store: Transactor, runId: string, id: string): Promise<void> {
  if (!/^\d+$/.test(id)) return;
  await store.transaction((client) => client.query('DELETE FROM teamline.inbox WHERE run_id = $1 AND id = $2', [runId, id]));
}

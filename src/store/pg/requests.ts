// Requests from any machine (cancel, resume; the writer's stop of one attempt): a row in `requests`, then NOTIFY teamline_run with the
// run id when it commits, so that the run's writer and its workers act without polling.
import type pg from 'pg';
import { UsageError } from '../../sys/errors.js';
import { connectClient } from './connect.js';
import type { PgStore } from './store.js';
import { RUN_CHANNEL } from './channel.js';
import type { RequestKind } from './schema-workers.js';

export { REQUEST_KINDS, type RequestKind } from './schema-workers.js';

export { RUN_CHANNEL } from './channel.js';

// A request as read back; ids grow in commit order within a run.
export interface RunRequest {
  id: number;
  kind: RequestKind;
  body: Record<string, unknown>;
  at: string;
}

// Per run, request inserts queue on this lock, so ids are handed out in commit order.
const REQUEST_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('teamline:requests:' || $1, 0))";

// Records the request and notifies on commit; returns its id. A run the store lacks is bad input.
export async function writeRequest(store: PgStore, runId: string, kind: RequestKind, body: object): Promise<number> {
  return store.transaction(async (client) => {
    await client.query(REQUEST_LOCK, [runId]);
    const row = await client.query<{ id: string }>('INSERT INTO teamline.requests (run_id, kind, body) VALUES ($1, $2, $3::jsonb) RETURNING id', [runId, kind, JSON.stringify(body)]).catch((error: { code?: string }) => {
      throw error.code === '23503' ? new UsageError(`--run: no run ${runId} in the store`) : error;
    });
    await client.query('SELECT pg_notify($1, $2)', [RUN_CHANNEL, runId]);
    return Number(row.rows[0]!.id);
  });
}

// The run's requests after id `since`, in the order they committed.
export async function readRequests(store: PgStore, runId: string, since: number): Promise<RunRequest[]> {
  const rows = await store.transaction((client) =>
    client.query<{ id: string; kind: RequestKind; body: Record<string, unknown>; at: Date }>('SELECT id, kind, body, at FROM teamline.requests WHERE run_id = $1 AND id > $2 ORDER BY id', [runId, since]),
  );
  return rows.rows.map((r) => ({ id: Number(r.id), kind: r.kind, body: r.body, at: r.at.toISOString() }));
}

// The id of the run's latest request, 0 when it has none: where a reader starts.
export async function lastRequestId(store: PgStore, runId: string): Promise<number> {
  const row = await store.transaction((client) => client.query<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM teamline.requests WHERE run_id = $1', [runId]));
  return Number(row.rows[0]!.id);
}

// A lost listening connection is made again after this long, doubling up to the last.
const RECONNECT_MS = [250, 500, 1_000, 2_000, 5_000];

export interface RequestListener {
  close(): Promise<void>;
}

// Listens on its own connection; `onRun` gets the run id of each request committed from now on.
// A connection that drops (a network gone for a while, the server restarted, the backend ended) is
// made again, with `onGap` called once it listens again: notifications sent meanwhile are lost, so
// the caller reads what it may have missed.
export async function listenRequests(url: string, applicationName: string, onRun: (runId: string) => void, onGap?: () => void): Promise<RequestListener> {
  let closed = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (): Promise<pg.Client> => {
    const made = await connectClient(url, applicationName);
    made.on('notification', (message) => {
      if (message.channel === RUN_CHANNEL && message.payload) onRun(message.payload);
    });
    const lost = () => {
      if (closed || client !== made) return;
      client = undefined;
      void made.end().catch(() => undefined);
      again(0);
    };
    made.on('error', lost).on('end', lost);
    try {
      await made.query(`LISTEN ${RUN_CHANNEL}`);
    } catch (error) {
      await made.end().catch(() => undefined);
      throw error;
    }
    return made;
  };
  const again = (step: number) => {
    timer = setTimeout(() => {
      timer = undefined;
      if (closed) return;
      connect().then(
        (made) => {
          if (closed) return void made.end().catch(() => undefined);
          client = made;
          onGap?.();
        },
        () => again(Math.min(step + 1, RECONNECT_MS.length - 1)),
      );
    }, RECONNECT_MS[step]);
    timer.unref();
  };
  client = await connect();
  return {
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}

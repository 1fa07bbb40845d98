// Connections to the PostgreSQL store: its URL as messages show it (no password) and the errors
// of a database that cannot be reached.
import { createRequire } from 'node:module';
import type pg from 'pg';
import { EXIT, TeamError } from '../../sys/errors.js';
import { maskUrl, withoutPassword } from '../mask-url.js';

// pg (and pg-boss, pg-queue.ts) load at the first connection: a run on files, and every command
// that names no store, never pays for them (they and what they require cost a command ~100 ms).
const requireHere = createRequire(import.meta.url);
let pgModule: typeof pg | undefined;
function pgLib(): typeof pg {
  return (pgModule ??= requireHere('pg') as typeof pg);
}

// Requires a driver package from here, the first time it is needed (pg-queue.ts: pg-boss).
export function requireDriver<T>(name: 'pg-boss'): T {
  return requireHere(name) as T;
}

// The database cannot be reached or refused us: the command stops with the reason.
export class StoreUnreachableError extends TeamError {
  constructor(url: string, cause: Error) {
    super(`the store ${describeUrl(url)} cannot be reached (${withoutPassword(cause.message, url)})`, EXIT.failed);
  }
}

// The database went away once reached (a restart, the network): the command stops with the reason,
// and a command that follows a run (wait, watch) takes it for an outage to ride out.
export class StoreLostError extends TeamError {
  constructor(url: string, cause: Error) {
    super(`the store ${describeUrl(url)} went away (${withoutPassword(cause.message, url)}); what it recorded is as it was`, EXIT.failed);
  }
}

// A database that answers nothing (a dropped packet, a host gone) is unreachable after this long.
const CONNECT_TIMEOUT_MS = 10_000;

// The URL with its password hidden (also a `password=` parameter), for messages.
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    return maskUrl(url);
  }
}

// A pool of connections named `applicationName` in pg_stat_activity; an idle connection that
// breaks is dropped by the pool, and the next query says why.
export function makePool(url: string, applicationName: string): pg.Pool {
  const pool = new (pgLib().Pool)({ connectionString: url, application_name: applicationName, max: 4, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  pool.on('error', () => undefined);
  return pool;
}

// One dedicated connection (the writer lock's); a connection that cannot be made is StoreUnreachableError.
export async function connectClient(url: string, applicationName: string): Promise<pg.Client> {
  const client = new (pgLib().Client)({ connectionString: url, application_name: applicationName, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new StoreUnreachableError(url, error as Error);
  }
  return client;
}

// pg's words and SQLSTATEs for a connection that is gone or cannot be made now.
const GONE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);
const GONE_WORDS = /Connection terminated|connection timeout|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery)|Client has encountered a connection error|cannot be reached/i;

// SQLSTATEs of a transaction PostgreSQL rolled back whole so that another could go on (a deadlock,
// a serialization failure): the same transaction made again is the remedy its manual gives.
const CONTENTION_CODES = new Set(['40P01', '40001']);

// Whether PostgreSQL rolled the transaction back for contention with another; nothing of it committed.
export function isContention(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && CONTENTION_CODES.has(code);
}

// Whether an error says the store's connection went away (the outcome of what it did is unknown).
export function isConnectionLoss(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return (e?.code !== undefined && GONE_CODES.has(e.code)) || GONE_WORDS.test(e?.message ?? '');
}

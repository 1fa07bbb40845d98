// Connections to the PostgreSQL store: its URL as messages show it (no password) and the errors
// of a database that cannot be reached.
import pg from 'pg';
import { EXIT, TeamError } from '../errors.js';

// The database cannot be reached or refused us: the command stops with the reason.
export class StoreUnreachableError extends TeamError {
  constructor(url: string, cause: Error) {
    super(`the store ${describeUrl(url)} cannot be reached (${cause.message})`, EXIT.failed);
  }
}

// A database that answers nothing (a dropped packet, a host gone) is unreachable after this long.
const CONNECT_TIMEOUT_MS = 10_000;

// The URL with its password hidden, for messages.
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an invalid URL)';
  }
}

// A pool of connections named `applicationName` in pg_stat_activity; an idle connection that
// breaks is dropped by the pool, and the next query says why.
export function makePool(url: string, applicationName: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, application_name: applicationName, max: 4, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  pool.on('error', () => undefined);
  return pool;
}

// One dedicated connection (the writer lock's); a connection that cannot be made is StoreUnreachableError.
export async function connectClient(url: string, applicationName: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: applicationName, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new StoreUnreachableError(url, error as Error);
  }
  return client;
}

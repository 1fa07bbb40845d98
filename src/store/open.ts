// Opens the store a command works on: the project's files, or the PostgreSQL store that --store or
// team.store names (pg/store.ts, and pg with it, load only then: a run on files never parses them).
import type { TeamConfig } from '../../config/schema.js';
import type { WriteOptions } from '../log/write.js';
import { FileStore } from './files/store.js';
import { storeUrlOf } from './store-url.js';
import type { RunStore } from './types.js';

// What of a project the store needs: its folder, its config (team.store), how its files are written.
export interface StoreProject {
  dir: string;
  config: TeamConfig;
  write: WriteOptions;
}

// The store `--store URL` (`flag`), else team.store, names; else the files. The connection shows
// the command in pg_stat_activity.
export async function openStore(project: StoreProject, flag: string | undefined, command: string): Promise<RunStore> {
  const url = storeUrlOf(flag, project.config);
  if (url === undefined) return new FileStore(project.dir, project.write);
  const { PgStore } = await import('./pg/store.js');
  return PgStore.open(url, `teamline ${command} pid ${process.pid}`, project.dir);
}

// Whether the database at `url` answers a query; its description (no password) when it does, else
// the error says why not. pg loads only here.
export async function probeStore(url: string, applicationName: string): Promise<string> {
  const { connectClient, describeUrl } = await import('./pg/connect.js');
  const client = await connectClient(url, applicationName);
  try {
    await client.query('SELECT 1');
  } finally {
    await client.end();
  }
  return describeUrl(url);
}

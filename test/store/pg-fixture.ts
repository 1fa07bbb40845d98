// A PostgreSQL store per test: a fresh database in the file's private cluster.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startCluster, type PgCluster } from '../helpers/postgres.js';
import { PgStore } from '../../src/store/pg/store.js';
import type { StoreFixture } from './conformance.js';
import { startWriter } from './writer-process.js';

let databases = 0;

// The test file's private cluster, started once, and a fresh project folder for each test (vitest hooks).
export function clusterAndProject(prefix: string, options: { durable?: boolean } = {}): { cluster: PgCluster; project: string } {
  const env = { cluster: undefined as unknown as PgCluster, project: '' };
  beforeAll(async () => {
    env.cluster = await startCluster(options);
  });
  afterAll(async () => {
    await env.cluster?.stop();
  });
  beforeEach(() => {
    env.project = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => rmSync(env.project, { recursive: true, force: true }));
  return env;
}

// The URL of a new, empty database of the cluster at `url`.
export async function makeDatabase(url: string): Promise<string> {
  const name = `t${++databases}_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const next = new URL(url);
  next.pathname = `/${name}`;
  return next.toString();
}

// A fresh store, and a connection of its own that writes around it.
export async function openPgFixture(clusterUrl: string): Promise<StoreFixture & { url: string; raw: pg.Client; store: PgStore }> {
  const url = await makeDatabase(clusterUrl);
  const store = await PgStore.open(url, 'teamline test');
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  return {
    url,
    raw,
    store,
    secondTerminal: 'refused',
    writeRaw: async (runId, kind, name, body) => {
      if (kind === 'approvals') await raw.query('INSERT INTO teamline.approvals (run_id, name, body) VALUES ($1, $2, $3::json)', [runId, name, body]);
      else await raw.query('INSERT INTO teamline.events (run_id, seq, name, body) SELECT $1, coalesce(max(seq), 0) + 1, $2, $3::json FROM teamline.events WHERE run_id = $1', [runId, name, body]);
    },
    startWriter: (runId) => startWriter('pg-writer.mjs', [url, runId]),
    cleanup: async () => {
      await raw.end();
      await store.close();
    },
  };
}

// The PostgreSQL store's tables (schema `teamline`, docs/scale-out.md), created idempotently. Bodies
// are `json`, which keeps each record's text as the file store writes it (key order included).
import type pg from 'pg';
import { APPEND_ONLY_TABLES, WORKER_TABLES, WORKER_TABLES_MADE } from './schema-workers.js';
import { INBOX_TABLE } from './inbox.js';

// Refuses UPDATE, DELETE and TRUNCATE: runs, events, approvals, reports and requests are written once.
const APPEND_ONLY = `
CREATE OR REPLACE FUNCTION teamline.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'teamline.%: % refused, the log is append-only', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END $$;`;

const TABLES = `
CREATE TABLE IF NOT EXISTS teamline.runs (
  run_id text PRIMARY KEY,
  inserted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  record json NOT NULL
);
CREATE TABLE IF NOT EXISTS teamline.events (
  run_id text NOT NULL REFERENCES teamline.runs (run_id),
  seq bigint NOT NULL CHECK (seq > 0),
  name text NOT NULL,
  body json NOT NULL,
  written_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (run_id, seq),
  UNIQUE (run_id, name)
);
CREATE UNIQUE INDEX IF NOT EXISTS events_one_terminal ON teamline.events (run_id, (body->>'task_id'), ((body->>'attempt')::int))
  WHERE body->>'event' = 'task_finished';
CREATE TABLE IF NOT EXISTS teamline.approvals (
  run_id text NOT NULL REFERENCES teamline.runs (run_id),
  name text NOT NULL,
  body json NOT NULL,
  written_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (run_id, name)
);`;

// One statement trigger per table (a statement that touches no row is refused too), made only when missing.
const TRIGGERS = APPEND_ONLY_TABLES.map((table) => `
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = '${table}_append_only' AND tgrelid = 'teamline.${table}'::regclass) THEN
    CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON teamline.${table} FOR EACH STATEMENT EXECUTE FUNCTION teamline.refuse_change();
  END IF;
END $$;`).join('\n');

// True when everything the statements above make is there, read from the catalog alone: no lock
// on any table is taken or waited for.
const SCHEMA_MADE = `SELECT (${[
  "to_regprocedure('teamline.refuse_change()') IS NOT NULL",
  ...['runs', 'events', 'approvals', 'inbox', 'events_one_terminal'].map((name) => `to_regclass('teamline.${name}') IS NOT NULL`),
  ...APPEND_ONLY_TABLES.map((table) => `EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = '${table}_append_only' AND tgrelid = to_regclass('teamline.${table}'))`),
  WORKER_TABLES_MADE,
].join(' AND ')}) AS made`;

// Creates the schema when missing, in one transaction; concurrent callers wait for each other. A
// store whose schema is all there is left alone: its DDL, even `CREATE INDEX IF NOT EXISTS`, would
// lock the tables it names, so every command that opens the store would wait for the writers and
// workers busy in them (and make them wait).
export async function ensureSchema(client: pg.ClientBase): Promise<void> {
  if ((await client.query<{ made: boolean }>(SCHEMA_MADE)).rows[0]?.made === true) return;
  await client.query('BEGIN');
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('teamline:schema', 0))");
    await client.query('CREATE SCHEMA IF NOT EXISTS teamline');
    await client.query(APPEND_ONLY);
    await client.query(TABLES);
    await client.query(WORKER_TABLES);
    await client.query(INBOX_TABLE);
    await client.query(TRIGGERS);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

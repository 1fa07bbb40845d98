// The tables of the workers (docs/scale-out.md): leases (renewed in place), reports and requests
// (append-only, like the log). Workers write leases and reports; they never write events.

// What a worker may report of an attempt it holds (pg-reports.ts): the table's check names them.
// `event`: one of the log's own events of a running attempt (src/attempt/news.ts), which the writer
// checks and appends; `output-tail`: its output's last line, for status; `finished`: its end.
export const REPORT_KINDS = ['event', 'output-tail', 'finished'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
// The kinds of reports a worker of an earlier teamline wrote (its own vocabulary): a store keeps
// their rows (the table is append-only), so its check takes them; no writer reads them any more.
const EARLIER_REPORT_KINDS = ['spawned', 'usage', 'stalled', 'spend', 'retrying'];
const STORED_REPORT_KINDS = [...REPORT_KINDS, ...EARLIER_REPORT_KINDS];

// What anyone may ask of a run (requests.ts): the table's check names them.
export const REQUEST_KINDS = ['cancel', 'resume', 'stop'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

// The check of a table's kinds, made again when a store made before a kind was added lacks one: the
// check a store already has takes every kind when its definition names each one.
function kindCheck(table: string, kinds: readonly string[]): string {
  const listed = kinds.map((kind) => `'${kind}'`).join(', ');
  return `
DO $$ BEGIN
  IF NOT ${hasKindCheck(table, kinds)} THEN
    ALTER TABLE teamline.${table} DROP CONSTRAINT IF EXISTS ${table}_kind_check;
    ALTER TABLE teamline.${table} ADD CONSTRAINT ${table}_kind_check CHECK (kind IN (${listed}));
  END IF;
END $$;`;
}

// True (SQL) when the table's check takes every kind.
function hasKindCheck(table: string, kinds: readonly string[]): string {
  const hasEvery = kinds.map((kind) => `pg_get_constraintdef(oid) LIKE '%''${kind}''%'`).join(' AND ');
  return `EXISTS (SELECT 1 FROM pg_constraint WHERE conname = '${table}_kind_check' AND conrelid = to_regclass('teamline.${table}') AND ${hasEvery})`;
}

// True (SQL) when the workers' tables are as WORKER_TABLES makes them: tables, indexes, checks.
export const WORKER_TABLES_MADE = [
  ...['leases', 'reports', 'requests', 'reports_one_finished', 'reports_spend_event_once'].map((name) => `to_regclass('teamline.${name}') IS NOT NULL`),
  hasKindCheck('reports', STORED_REPORT_KINDS),
  hasKindCheck('requests', REQUEST_KINDS),
].join(' AND ');

// Leases: one row per attempt a worker took; renewed by its worker, read by the run's writer.
const LEASES = `
CREATE TABLE IF NOT EXISTS teamline.leases (
  run_id text NOT NULL REFERENCES teamline.runs (run_id),
  task_id text NOT NULL,
  attempt int NOT NULL CHECK (attempt > 0),
  queue text NOT NULL,
  job_id uuid NOT NULL,
  worker_id text NOT NULL,
  host text NOT NULL,
  boot_id text NOT NULL,
  taken_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  renewed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (run_id, task_id, attempt)
);`;

// Reports: seq is per run and gapless, given out under a per-run transaction lock, so that a reader
// that asks "since seq N" never misses a row committed later with a smaller number.
const REPORTS = `
CREATE TABLE IF NOT EXISTS teamline.reports (
  run_id text NOT NULL REFERENCES teamline.runs (run_id),
  seq bigint NOT NULL CHECK (seq > 0),
  task_id text NOT NULL,
  attempt int NOT NULL CHECK (attempt > 0),
  worker_id text NOT NULL,
  kind text NOT NULL,
  body jsonb NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (run_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS reports_one_finished ON teamline.reports (run_id, task_id, attempt) WHERE kind = 'finished';
-- A spend report sent again (its first sending seemed to fail) is the same report: its number says so.
CREATE UNIQUE INDEX IF NOT EXISTS reports_spend_event_once ON teamline.reports (run_id, task_id, attempt, (body->>'n')) WHERE kind = 'event' AND body->>'event' = 'attempt_spend';
${kindCheck('reports', STORED_REPORT_KINDS)}`;

// Requests: cancel and resume asked from any machine, and the writer's stop of one attempt, in the
// order they commit.
const REQUESTS = `
CREATE TABLE IF NOT EXISTS teamline.requests (
  run_id text NOT NULL REFERENCES teamline.runs (run_id),
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL,
  body jsonb NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
${kindCheck('requests', REQUEST_KINDS)}`;

// The workers' tables, in the order they are made.
export const WORKER_TABLES = [LEASES, REPORTS, REQUESTS].join('\n');

// The tables a statement trigger keeps append-only.
export const APPEND_ONLY_TABLES = ['runs', 'events', 'approvals', 'reports', 'requests'] as const;

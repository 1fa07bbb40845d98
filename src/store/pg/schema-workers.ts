// The tables of the workers (docs/scale-out.md): leases (renewed in place), reports and requests
// (append-only, like the log). Workers write leases and reports; they never write events.

// What a worker may report of an attempt it holds (pg-reports.ts): the table's check names them.
export const REPORT_KINDS = ['spawned', 'usage', 'output-tail', 'stalled', 'finished'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

const KINDS = REPORT_KINDS.map((kind) => `'${kind}'`).join(', ');
// The check a store already has takes every kind when its definition names each one.
const HAS_EVERY_KIND = REPORT_KINDS.map((kind) => `pg_get_constraintdef(oid) LIKE '%''${kind}''%'`).join(' AND ');

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
  kind text NOT NULL CONSTRAINT reports_kind_check CHECK (kind IN (${KINDS})),
  body jsonb NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (run_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS reports_one_finished ON teamline.reports (run_id, task_id, attempt) WHERE kind = 'finished';
-- A store made before a kind was added takes the new list.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'reports_kind_check' AND conrelid = 'teamline.reports'::regclass AND ${HAS_EVERY_KIND}) THEN
    ALTER TABLE teamline.reports DROP CONSTRAINT IF EXISTS reports_kind_check;
    ALTER TABLE teamline.reports ADD CONSTRAINT reports_kind_check CHECK (kind IN (${KINDS}));
  END IF;
END $$;`;

// Requests: cancel and resume asked from any machine, in the order they commit.
const REQUESTS = `
CREATE TABLE IF NOT EXISTS teamline.requests (
  run_id text NOT NULL REFERENCES teamline.runs (run_id),
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('cancel', 'resume')),
  body jsonb NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);`;

// The workers' tables, in the order they are made.
export const WORKER_TABLES = [LEASES, REPORTS, REQUESTS].join('\n');

// The tables a statement trigger keeps append-only.
export const APPEND_ONLY_TABLES = ['runs', 'events', 'approvals', 'reports', 'requests'] as const;

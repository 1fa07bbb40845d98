// The PostgreSQL store: runs, events and approvals in schema `teamline` (docs/scale-out.md). Each
// step is one transaction; seq is per run and gapless, given out under the run row's lock.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Approval, NewEvent, TeamEvent } from '../../log/schema.js';
import { checkApproval, type ApprovalView } from '../../log/approvals.js';
import { validateId } from '../../log/guards.js';
import type { Problem } from '../../log/read.js';
import { foldRun } from '../../log/fold/fold.js';
import { approvalFileName, eventFileName, runPathsIn, type RunPaths, type RunRecord } from '../../log/write.js';
import { makeRunId, nowIso } from '../../log/time.js';
import { TeamError, UsageError } from '../../sys/errors.js';
import { describeUrl, isConnectionLoss, isContention, makePool, StoreLostError, StoreUnreachableError } from './connect.js';
import { ensureSchema } from './schema.js';
import { parseApprovalBody, parseEventBody } from '../parse-body.js';
import { hasWriter, takeWriterLock, type WriterLock } from './writer-lock.js';
import { endedBy, findConflicts, refuseSecondTerminal, TerminalConflictError } from '../terminal.js';
import { foldInput, type NewRun, type RunRead, type RunStore, type Tails } from '../types.js';
import { OutputTails } from './tails.js';
import { checkInboxRequest, type InboxRead, type NewInboxRequest } from '../inbox.js';
import { postPgRequest, readPgRequests, removePgRequest } from './inbox.js';

type Row = { name: string; body: string };

// How often a transaction rolled back for contention is made, and the first wait between two tries
// (grown with each, spread at random so that the two sides do not meet again in step).
const CONTENTION_TRIES = 6;
const CONTENTION_WAIT_MS = 25;

// A store on one database; open() makes the schema when it is missing. `projectDir`: the folder
// this machine keeps its own files of a run in (.team/store-runs/<run>).
export class PgStore implements RunStore {
  readonly kind = 'postgres' as const;
  readonly where: string;
  private closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    readonly url: string,
    private readonly projectDir: string,
  ) {
    this.where = describeUrl(url);
  }

  // Connects and makes the schema; a database that cannot be reached is StoreUnreachableError, one
  // that went away once reached (a restart during the schema's check) StoreLostError. The
  // connection's 'error' event is taken here: unheard, it would end the process.
  static async open(url: string, applicationName = `teamline ${process.pid}`, projectDir = process.cwd()): Promise<PgStore> {
    const pool = makePool(url, applicationName);
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      await pool.end();
      throw new StoreUnreachableError(url, error as Error);
    }
    let broken: Error | undefined;
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    try {
      await ensureSchema(client);
    } catch (error) {
      client.release(broken ?? true);
      await pool.end();
      throw broken !== undefined || isConnectionLoss(error) ? new StoreLostError(url, (broken ?? error) as Error) : new StoreUnreachableError(url, error as Error);
    } finally {
      client.off('error', onError);
    }
    client.release();
    return new PgStore(pool, url, projectDir);
  }

  async createRun(fields: NewRun, runId: string = makeRunId()): Promise<RunRecord> {
    validateId(runId, 'run id');
    const record: RunRecord = { run_id: runId, created_at: nowIso(), ...fields };
    const made = await this.pool.query('INSERT INTO teamline.runs (run_id, record) VALUES ($1, $2::json) ON CONFLICT DO NOTHING', [runId, JSON.stringify(record)]);
    if (made.rowCount !== 1) throw new UsageError(`run id ${runId} is in use: a run is created once`);
    return record;
  }

  // One transaction: the run row is locked, so seq has no gap and steps never interleave. `within`
  // runs in that transaction after the rows are in (pg-step.ts sends the step's attempt jobs there):
  // when it throws, nothing of the step is written.
  async append(runId: string, records: NewEvent[], within?: (client: pg.ClientBase, written: TeamEvent[]) => Promise<void>): Promise<TeamEvent[]> {
    const full = records.map((r) => ({ ...r, at: nowIso(), run_id: runId }) as TeamEvent);
    await this.appendMade(runId, full.map((event) => ({ event, name: eventFileName(event) })), within);
    return full;
  }

  // The same append of events already made (their `at`, `run_id` and name given), as the orchestrator
  // makes each one when it appends it and commits a step's later.
  async appendMade(runId: string, made: Array<{ event: TeamEvent; name: string }>, within?: (client: pg.ClientBase, written: TeamEvent[]) => Promise<void>): Promise<void> {
    const records = made.map((m) => m.event);
    await this.transaction(async (client) => {
      // NO KEY UPDATE: appends of the run wait for each other (seq is given out under this lock), but a
      // worker's lease or report, whose foreign key only shares the run's key, does not wait for them.
      const run = await client.query('SELECT 1 FROM teamline.runs WHERE run_id = $1 FOR NO KEY UPDATE', [runId]);
      if (run.rowCount !== 1) throw this.noRun(runId);
      const ended = endedBy(records);
      if (ended.length > 0) {
        const found = await client.query<{ task: string; attempt: number }>(
          "SELECT body->>'task_id' AS task, (body->>'attempt')::int AS attempt FROM teamline.events WHERE run_id = $1 AND body->>'event' = 'task_finished' AND body->>'task_id' = ANY($2::text[])",
          [runId, ended.map((k) => k.task)],
        );
        const has = new Set(found.rows.map((r) => `${r.task}#${r.attempt}`));
        refuseSecondTerminal(runId, records, (k) => has.has(`${k.task}#${k.attempt}`));
      }
      const last = await client.query<{ last: string }>('SELECT coalesce(max(seq), 0) AS last FROM teamline.events WHERE run_id = $1', [runId]);
      await client
        .query(
          'INSERT INTO teamline.events (run_id, seq, name, body) SELECT $1, $2::bigint + t.ord, t.name, t.body::json FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS t(name, body, ord)',
          [runId, last.rows[0]!.last, made.map((m) => m.name), records.map((e) => JSON.stringify(e))],
        )
        .catch((error: { constraint?: string }) => {
          // The index is the last word: a second terminal record never commits.
          if (error.constraint === 'events_one_terminal' && ended[0]) throw new TerminalConflictError(runId, ended[0].task, ended[0].attempt);
          throw error;
        });
      await within?.(client, records);
    });
  }

  // One snapshot of the run: its record, events in seq order, approvals.
  async read(runId: string): Promise<RunRead> {
    return this.transaction(async (client) => {
      await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const run = await client.query<{ record: string }>('SELECT record::text AS record FROM teamline.runs WHERE run_id = $1', [runId]);
      if (run.rowCount !== 1) throw this.noRun(runId);
      const malformed: Problem[] = [];
      const events = parseRows((await client.query<Row>('SELECT name, body::text AS body FROM teamline.events WHERE run_id = $1 ORDER BY seq', [runId])).rows, 'events', parseEventBody, malformed);
      const approvals = parseRows((await this.approvalRows(client, runId)).rows, 'approvals', parseApprovalBody, malformed);
      return { run: JSON.parse(run.rows[0]!.record) as RunRecord, events, approvals, malformed, conflicts: findConflicts(events) };
    });
  }

  async view(runId: string, projectDir: string) {
    const read = await this.read(runId);
    return { view: foldRun(foldInput(read), projectDir), events: read.events };
  }

  async eventCount(runId: string): Promise<number> {
    const row = await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM teamline.events WHERE run_id = $1', [runId]);
    return Number(row.rows[0]!.n);
  }

  async hasRun(runId: string): Promise<boolean> {
    return ((await this.pool.query('SELECT 1 FROM teamline.runs WHERE run_id = $1', [runId])).rowCount ?? 0) > 0;
  }

  // How the run ended (completed, failed or cancelled), or undefined while it has not: its last end record.
  async endOf(runId: string): Promise<'completed' | 'failed' | 'cancelled' | undefined> {
    const end = await this.pool.query<{ event: string }>(
      "SELECT body->>'event' AS event FROM teamline.events WHERE run_id = $1 AND body->>'event' IN ('run_completed', 'run_failed', 'run_cancelled') ORDER BY seq DESC LIMIT 1",
      [runId],
    );
    const event = end.rows[0]?.event;
    return event === undefined ? undefined : (event.slice('run_'.length) as 'completed' | 'failed' | 'cancelled');
  }

  // The pool, for queries of the store's other tables (the writer lock's holder, the workers' rows).
  get db(): pg.Pool {
    return this.pool;
  }

  async approve(runId: string, approval: Approval): Promise<void> {
    await this.pool.query('INSERT INTO teamline.approvals (run_id, name, body) VALUES ($1, $2, $3::json)', [runId, approvalFileName(approval), JSON.stringify(approval)]).catch((error: { code?: string }) => {
      throw error.code === '23503' ? this.noRun(runId) : error;
    });
  }

  async approvals(runId: string, projectDir: string): Promise<ApprovalView[]> {
    const run = await this.pool.query('SELECT 1 FROM teamline.runs WHERE run_id = $1', [runId]);
    if (run.rowCount !== 1) throw this.noRun(runId);
    const approvals = parseRows((await this.approvalRows(this.pool, runId)).rows, 'approvals', parseApprovalBody, []);
    return approvals.map((approval) => checkApproval(approval, projectDir));
  }

  async runIds(): Promise<string[]> {
    const runs = await this.pool.query<{ run_id: string }>('SELECT run_id FROM teamline.runs ORDER BY inserted_at, run_id');
    return runs.rows.map((row) => row.run_id);
  }

  async current(): Promise<string | undefined> {
    const latest = await this.pool.query<{ run_id: string }>('SELECT run_id FROM teamline.runs ORDER BY inserted_at DESC, run_id DESC LIMIT 1');
    return latest.rows[0]?.run_id;
  }

  async pickRun(runId?: string): Promise<string> {
    if (runId !== undefined && !(await this.hasRun(runId))) throw this.noRun(runId);
    const id = runId ?? (await this.current());
    if (id === undefined) throw new UsageError(`no run in ${this.where}: the store has none (runs are written to PostgreSQL by a writer; the files under .team/runs need no --store)`);
    return id;
  }

  // A writer holds the run's lock; the database cannot tell which process, so `pid` is not asked.
  async hasWriter(runId: string): Promise<boolean> {
    return hasWriter(this.pool, runId);
  }

  // A session advisory lock on a connection of its own: the server frees it when that connection ends.
  lockWriter(runId: string, holder: string): Promise<WriterLock> {
    return takeWriterLock(this.url, runId, holder);
  }

  async postRequest(runId: string, request: NewInboxRequest): Promise<void> {
    await postPgRequest(this, runId, checkInboxRequest(request));
  }

  async pendingRequests(runId: string): Promise<InboxRead> {
    return readPgRequests(this, runId);
  }

  async removeRequest(runId: string, id: string): Promise<void> {
    await removePgRequest(this, runId, id);
  }

  // The last output line of each attempt, as its worker reported it.
  tails(runId: string): Tails {
    return new OutputTails(this, runId);
  }

  // This machine's files of a run on the store: laid out as a run folder's, under .team/store-runs.
  paths(runId: string): RunPaths {
    return runPathsIn(join(this.projectDir, '.team', 'store-runs', runId), this.projectDir);
  }

  // The run's page goes to the project: this machine may have no folder of the run.
  reportFile(runId: string): string {
    return join(this.projectDir, `report-${runId}.html`);
  }

  resumeHint(runId: string): string {
    return `no writer holds its lock in ${this.where}; \`team resume --run ${runId} --store ${this.where}\` continues it`;
  }

  readonly runsIn = 'the store';
  readonly pollMs = 500;

  // The database lost in the middle of a command (a restart, the network) is named as such, never a stack.
  explain(error: unknown): unknown {
    return !(error instanceof TeamError) && isConnectionLoss(error) ? new StoreLostError(this.where, error as Error) : error;
  }

  // Ends the pool; a second close (the writer's release, then the command's) does nothing.
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private approvalRows(db: pg.ClientBase | pg.Pool, runId: string) {
    return db.query<Row>('SELECT name, body::text AS body FROM teamline.approvals WHERE run_id = $1 ORDER BY name', [runId]);
  }

  private noRun(runId: string): UsageError {
    return new UsageError(`--run: no run ${runId} in ${this.where}`);
  }

  // Runs `work` in one transaction on one of the store's connections (the workers' calls use it too).
  // A connection that breaks meanwhile (the server restarted) fails the transaction's query; its
  // 'error' event is taken here, and the broken connection leaves the pool. A transaction PostgreSQL
  // rolled back for contention (a deadlock with a worker taking jobs, say) is made again, a few times:
  // nothing of it committed, and `work` does nothing but through `client`.
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.once(work);
      } catch (error) {
        if (!isContention(error) || tries >= CONTENTION_TRIES) throw error;
        await sleep(CONTENTION_WAIT_MS * tries * (0.5 + Math.random()));
      }
    }
  }

  private async once<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      if (!broken) await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }
}

// Rows read as files are: a body that does not parse is reported under its name, never trusted.
function parseRows<T extends object>(rows: Row[], label: string, parse: (text: string) => T | string, problems: Problem[]): Array<T & { file: string }> {
  const out: Array<T & { file: string }> = [];
  for (const row of rows) {
    const parsed = parse(row.body);
    if (typeof parsed === 'string') problems.push({ file: `${label}/${row.name}`, reason: parsed });
    else out.push(Object.assign(parsed, { file: row.name }));
  }
  return out;
}

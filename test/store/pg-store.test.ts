// The PostgreSQL store against the store conformance suite, on a private cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnreachableError } from '../../src/store/pg/connect.js';
import { PgStore } from '../../src/store/pg/store.js';
import { TerminalConflictError } from '../../src/store/terminal.js';
import { startCluster, type PgCluster } from '../helpers/postgres.js';
import { storeConformance } from './conformance.js';
import { makeDatabase, openPgFixture } from './pg-fixture.js';
import { entered, finished, RUN_FIELDS } from './records.js';
import { waitFor } from '../helpers/wait-event.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

describe('src/store/pg-store', () => {
  storeConformance(() => openPgFixture(cluster.url));
});

describe('src/store/pg-store tables', () => {
  it('refuse UPDATE, DELETE and TRUNCATE of runs, events and approvals', async () => {
    const fx = await openPgFixture(cluster.url);
    try {
      const run = await fx.store.createRun(RUN_FIELDS, 'run-1');
      await fx.store.append(run.run_id, [entered('team-plan')]);
      for (const sql of ["UPDATE teamline.events SET body = '{}'", 'DELETE FROM teamline.events', 'TRUNCATE teamline.events CASCADE', "UPDATE teamline.runs SET record = '{}'", 'DELETE FROM teamline.approvals', 'TRUNCATE teamline.approvals']) {
        await expect(fx.raw.query(sql), sql).rejects.toThrow(/^teamline\.(events|runs|approvals): (UPDATE|DELETE|TRUNCATE) refused, the log is append-only$/);
      }
      expect((await fx.store.read(run.run_id)).events.map((e) => e.event)).toEqual(['stage_entered']);
    } finally {
      await fx.cleanup();
    }
  });

  it('number each run’s events 1, 2, 3… with no gap, even after a refused step', async () => {
    const fx = await openPgFixture(cluster.url);
    try {
      await fx.store.createRun(RUN_FIELDS, 'run-a');
      await fx.store.createRun(RUN_FIELDS, 'run-b');
      await fx.store.append('run-a', [entered('a1'), finished('t1', 1)]);
      await fx.store.append('run-b', [entered('b1')]);
      await expect(fx.store.append('run-a', [entered('a2'), finished('t1', 1)])).rejects.toThrow(TerminalConflictError);
      await Promise.all([fx.store.append('run-a', [entered('a3')]), fx.store.append('run-a', [entered('a4')]), fx.store.append('run-b', [entered('b2')])]);
      const { rows } = await fx.raw.query<{ run_id: string; seq: string }>('SELECT run_id, seq FROM teamline.events ORDER BY run_id, seq');
      expect(rows.map((r) => `${r.run_id}:${r.seq}`)).toEqual(['run-a:1', 'run-a:2', 'run-a:3', 'run-a:4', 'run-b:1', 'run-b:2']);
    } finally {
      await fx.cleanup();
    }
  });

  it('creates its schema once when stores open side by side on a new database', async () => {
    const url = await makeDatabase(cluster.url);
    const stores = await Promise.all([PgStore.open(url), PgStore.open(url), PgStore.open(url)]);
    await Promise.all(stores.map((s) => s.close()));
    const again = await PgStore.open(url);
    expect(await again.current()).toBeUndefined();
    await again.close();
  });

  it('lets a store made before a report kind existed take the new kind when it opens, and still refuses an unknown one', async () => {
    const fx = await openPgFixture(cluster.url);
    try {
      await fx.store.createRun(RUN_FIELDS, 'run-1');
      // The check as a store made before 'event' has it, with a report of that time in it: the table
      // is append-only, so the new check must take the old row too.
      await fx.raw.query("ALTER TABLE teamline.reports DROP CONSTRAINT reports_kind_check, ADD CONSTRAINT reports_kind_check CHECK (kind IN ('spawned', 'usage', 'output-tail', 'stalled', 'finished', 'spend', 'retrying'))");
      const report = (seq: number, kind: string) => fx.raw.query("INSERT INTO teamline.reports (run_id, seq, task_id, attempt, worker_id, kind, body) VALUES ('run-1', $1, 't1', 1, 'w1', $2, '{}')", [seq, kind]);
      await report(1, 'spawned');
      await expect(report(2, 'event')).rejects.toThrow(/reports_kind_check/);
      const reopened = await PgStore.open(fx.url);
      await reopened.close();
      await report(2, 'event');
      await expect(report(3, 'gossip')).rejects.toThrow(/reports_kind_check/);
      const { rows } = await fx.raw.query<{ kind: string }>('SELECT kind FROM teamline.reports ORDER BY seq');
      expect(rows.map((r) => r.kind)).toEqual(['spawned', 'event']);
    } finally {
      await fx.cleanup();
    }
  });

  it('lets a store made before the stop request existed take it when it opens, and still refuses an unknown kind', async () => {
    const fx = await openPgFixture(cluster.url);
    try {
      await fx.store.createRun(RUN_FIELDS, 'run-1');
      // The check as a store made before 'stop' has it (its name as PostgreSQL gave it then).
      await fx.raw.query("ALTER TABLE teamline.requests DROP CONSTRAINT requests_kind_check, ADD CONSTRAINT requests_kind_check CHECK (kind IN ('cancel', 'resume'))");
      const request = (kind: string) => fx.raw.query("INSERT INTO teamline.requests (run_id, kind, body) VALUES ('run-1', $1, '{}')", [kind]);
      await expect(request('stop')).rejects.toThrow(/requests_kind_check/);
      const reopened = await PgStore.open(fx.url);
      await reopened.close();
      await request('stop');
      await expect(request('gossip')).rejects.toThrow(/requests_kind_check/);
    } finally {
      await fx.cleanup();
    }
  });

  it("opens a store whose tables are busy without waiting for them (a worker's report being written), and still makes what is missing", async () => {
    const fx = await openPgFixture(cluster.url);
    try {
      await fx.store.createRun(RUN_FIELDS, 'run-1');
      // What a worker writing its report holds, and a writer appending, until they commit.
      await fx.raw.query('BEGIN');
      await fx.raw.query('LOCK TABLE teamline.reports, teamline.events IN ROW EXCLUSIVE MODE');
      const opened = await PgStore.open(fx.url, 'teamline status');
      await opened.close();
      await fx.raw.query('COMMIT');
      await fx.raw.query('DROP INDEX teamline.reports_spend_event_once');
      const again = await PgStore.open(fx.url, 'teamline status');
      await again.close();
      expect((await fx.raw.query("SELECT to_regclass('teamline.reports_spend_event_once') IS NOT NULL AS found")).rows[0].found).toBe(true);
    } finally {
      await fx.cleanup();
    }
  });

  it("appends to a run while a worker's transaction shares the run's key (a lease being taken): the append does not wait for it", async () => {
    const fx = await openPgFixture(cluster.url);
    try {
      await fx.store.createRun(RUN_FIELDS, 'run-1');
      // What a lease's or report's foreign key takes on the run's row, held open as a worker taking jobs would.
      await fx.raw.query('BEGIN');
      await fx.raw.query("SELECT 1 FROM teamline.runs WHERE run_id = 'run-1' FOR KEY SHARE");
      await fx.store.append('run-1', [entered('team-plan')]);
      await fx.raw.query('COMMIT');
      expect((await fx.store.read('run-1')).events.map((e) => e.event)).toEqual(['stage_entered']);
    } finally {
      await fx.cleanup();
    }
  });

  it('makes a step again that PostgreSQL rolled back for a deadlock, and commits it once', async () => {
    const fx = await openPgFixture(cluster.url);
    try {
      await fx.store.createRun(RUN_FIELDS, 'run-1');
      await fx.raw.query('CREATE TABLE public.held (id int PRIMARY KEY)');
      await fx.raw.query('INSERT INTO public.held VALUES (1)');
      // The other side holds a row the step will want, and (later) wants the run's row the step holds.
      // Its own deadlock check waits long, so PostgreSQL picks the step to roll back.
      await fx.raw.query('BEGIN');
      await fx.raw.query("SET LOCAL deadlock_timeout = '60s'");
      await fx.raw.query('UPDATE public.held SET id = 1 WHERE id = 1');
      let tries = 0;
      const step = fx.store.append('run-1', [entered('team-plan')], async (client) => {
        tries += 1;
        await client.query('UPDATE public.held SET id = 1 WHERE id = 1');
      });
      // Once the step waits for the held row, the other side asks for the run's row: a deadlock.
      // (Activity is read as of the transaction's start unless its snapshot is cleared.)
      const stepWaits = async () => {
        await fx.raw.query('SELECT pg_stat_clear_snapshot()');
        const waiting = await fx.raw.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE public.held%'");
        return waiting.rowCount === 1;
      };
      await waitFor('the step to wait for the held row', stepWaits, 60_000);
      await fx.raw.query("SELECT 1 FROM teamline.runs WHERE run_id = 'run-1' FOR UPDATE");
      await fx.raw.query('COMMIT');
      await step;
      expect(tries).toBe(2);
      expect((await fx.store.read('run-1')).events.map((e) => e.event)).toEqual(['stage_entered']);
    } finally {
      await fx.cleanup();
    }
  });

  it('says which store cannot be reached, without its password', async () => {
    const url = cluster.url.replace(/:\d+\//, ':1/');
    await expect(PgStore.open(url)).rejects.toThrow(StoreUnreachableError);
    await expect(PgStore.open(url)).rejects.toThrow(/^the store postgres:\/\/teamline:\*\*\*@127\.0\.0\.1:1\/postgres cannot be reached \(connect ECONNREFUSED 127\.0\.0\.1:1\)$/);
  });
});

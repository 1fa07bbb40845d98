// The worker tests' world: a database per test in the file's private cluster, the test as the run's
// writer (store + pg-boss), `team worker` processes from the built CLI, and a ledger agent.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type PgBoss from 'pg-boss';
import type { NewEvent } from '../../src/log/schema.js';
import type { AttemptJob } from '../../src/store/pg/attempt-job.js';
import pg from 'pg';
import { afterEach } from 'vitest';
import { closeQueue, openQueue } from '../../src/store/pg/queue.js';
import { readWorkerNews, type WorkerNews } from '../../src/store/pg/reports.js';
import { appendStep } from '../../src/store/pg/step.js';
import { PgStore } from '../../src/store/pg/store.js';
import { killOwnedGroups } from '../helpers/proc-groups.js';
import { reportName, takenAgent } from '../helpers/worker-reports.js';
import { CLI } from '../helpers/team.js';
import { shJob, started } from '../store/attempt-records.js';
import { makeDatabase } from '../store/pg-fixture.js';
import { RUN_FIELDS } from '../store/records.js';

// The ledger agent: a line when it starts and when it is done, in the ledger every agent shares; it
// waits for `release-<task>-a<attempt>` in the ledger's folder when `hold` says so; then writes its result.
// The ledger's folder is outside every worker's: its jobs name it writable through the fence (fenceWritable).
export function ledgerScript(ledgerDir: string, hold: boolean): string {
  const line = `"$TEAM_TASK_ID a$TEAM_ATTEMPT $1 $(pwd)"`;
  return [
    `set -- start; echo ${line} >> '${ledgerDir}/ledger'`,
    hold ? `while [ ! -e "${ledgerDir}/release-$TEAM_TASK_ID-a$TEAM_ATTEMPT" ]; do sleep 0.05; done` : ':',
    `printf '{"status":"completed","summary":"%s"}' "$(cat "$TEAM_PROMPT_FILE" | tr -d '\\n')" > "$TEAM_RESULT_FILE"`,
    `set -- done; echo ${line} >> '${ledgerDir}/ledger'`,
  ].join('\n');
}

// The ledger's lines, empty before the first.
export function readLedger(ledgerDir: string): string[] {
  const file = join(ledgerDir, 'ledger');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
}

// Polls `check` until it gives a value (the tests wait for facts, never for a time).
export async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, limitMs = 30_000): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`still waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// A writer on a fresh database with one run, and the workers it starts (stopped after each test). The
// run id is unique on the machine: a worker ends the stray processes of an attempt by run, task and
// attempt (workers/escapees.ts), so two test files running at once must never share one.
export async function openWorld(clusterUrl: string, project: string) {
  const runId = `run-${randomBytes(4).toString('hex')}`;
  const url = await makeDatabase(clusterUrl);
  const store = await PgStore.open(url, 'teamline test writer');
  const boss: PgBoss = await openQueue(url, 'teamline test writer');
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  await store.createRun(RUN_FIELDS, runId);
  const workers: ResultPromise[] = [];
  const handles: Array<{ pid: number; pidStart: number; pgid: number }> = [];
  const world = {
    runId,
    url,
    store,
    raw,
    // The writer's step: `before`, then task_started of each (task, attempt) with its ledger job.
    start: (attempts: Array<[string, number]>, hold = true, before: NewEvent[] = [], extra: Partial<AttemptJob> = {}) =>
      appendStep(store, boss, runId, [...before, ...attempts.map(([t, a]) => started(t, a))], attempts.map(([t, a]) => shJob(runId, t, a, ledgerScript(project, hold), { fenceWritable: [project], ...extra }))),
    release: (task: string, attempt: number) => execa('touch', [join(project, `release-${task}-a${attempt}`)]),
    // `team worker` in its own folder (as its own machine).
    // `how.env` is added to its environment; `how.storeFlag: false` leaves --store out (the store then
    // comes from elsewhere, e.g. TEAM_STORE in `how.env`).
    worker: (name: string, args: string[] = [], how: { env?: Record<string, string>; storeFlag?: boolean } = {}) => {
      const dir = join(project, name);
      mkdirSync(dir, { recursive: true });
      const store = how.storeFlag === false ? [] : ['--store', url];
      const child = execa('node', [CLI, 'worker', ...store, '--cwd', dir, ...args], { reject: false, stdin: 'ignore', ...(how.env && { env: how.env }) });
      workers.push(child);
      return { child, dir };
    },
    news: (): Promise<WorkerNews> => readWorkerNews(store, runId, 0),
    // The reports of one attempt, once one named `name` (an event's name, or output-tail, finished) is among them.
    reportsOf: (task: string, attempt: number, name: string) =>
      until(async () => {
        const mine = (await readWorkerNews(store, runId, 0)).reports.filter((r) => r.taskId === task && r.attempt === attempt);
        for (const r of mine) {
          const agent = takenAgent(r);
          if (agent) handles.push(agent);
        }
        return mine.some((r) => reportName(r) === name) && mine;
      }, `a ${name} report of ${task} a${attempt}`),
    jobStates: async () => (await raw.query<{ task: string; attempt: number; state: string }>("SELECT data->>'taskId' AS task, (data->>'attempt')::int AS attempt, state FROM pgboss.job ORDER BY 1, 2")).rows,
    close: async () => {
      for (const child of workers) if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.allSettled(workers);
      killOwnedGroups(handles);
      await raw.end();
      await closeQueue(boss);
      await store.close();
    },
  };
  return world;
}

// Closes each world after its test.
export function closeWorlds(): { add<T extends { close(): Promise<void> }>(world: T): T } {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const world of open.splice(0)) await world.close();
  });
  return { add: (world) => (open.push(world), world) };
}

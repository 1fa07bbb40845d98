// pg-boss on the store's database: the attempt queues, with retries off (teamline decides retries)
// and no maintenance (no expiry, no archive: a job id stays taken, so an attempt is enqueued once).
import type PgBoss from 'pg-boss';
import type pg from 'pg';
import { requireDriver, StoreUnreachableError } from './connect.js';
import { attemptQueue } from './attempt-job.js';

// pg-boss's tables live in their own schema beside `teamline`.
const BOSS_SCHEMA = 'pgboss';

// A pg-boss instance on `url`, started, its schema made when missing.
export async function openQueue(url: string, applicationName: string): Promise<PgBoss> {
  const Boss = requireDriver<typeof PgBoss>('pg-boss');
  const boss = new Boss({ connectionString: url, application_name: applicationName, schema: BOSS_SCHEMA, max: 2, supervise: false, schedule: false, retryLimit: 0 });
  boss.on('error', () => undefined);
  try {
    await boss.start();
  } catch (error) {
    await boss.stop({ graceful: false, wait: false }).catch(() => undefined);
    throw new StoreUnreachableError(url, error as Error);
  }
  return boss;
}

// Makes the queue of attempts with `label` (none: team-attempts) when missing; retries off.
export async function ensureAttemptQueue(boss: PgBoss, label?: string): Promise<string> {
  const name = attemptQueue(label);
  await boss.createQueue(name, { name, retryLimit: 0 });
  return name;
}

// pg-boss's db adapter on one client: its statements join that client's open transaction.
export function onClient(client: pg.ClientBase): PgBoss.Db {
  return { executeSql: (text, values) => client.query(text, values) };
}

// Stops pg-boss and closes its pool.
export async function closeQueue(boss: PgBoss): Promise<void> {
  await boss.stop({ graceful: false, wait: true, timeout: 1_000 });
}

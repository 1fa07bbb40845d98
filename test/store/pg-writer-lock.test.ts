// One writer per run: the advisory lock refuses a second writer by name and is freed by kill -9.
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockedError } from '../../src/sys/errors.js';
import { takeWriterLock, writerName } from '../../src/store/pg/writer-lock.js';
import { startCluster, type PgCluster } from '../helpers/postgres.js';
import { ROOT } from '../helpers/team.js';

let cluster: PgCluster;
let watcher: pg.Client;
beforeAll(async () => {
  cluster = await startCluster();
  watcher = new pg.Client({ connectionString: cluster.url });
  await watcher.connect();
});
afterAll(async () => {
  await watcher?.end();
  await cluster?.stop();
});

// Whether the server still has this backend.
async function backendAlive(pid: number): Promise<boolean> {
  const { rowCount } = await watcher.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
  return rowCount === 1;
}

describe('src/store/pg-writer-lock', () => {
  it('refuses a second writer, naming the backend and application that hold the run', async () => {
    const first = await takeWriterLock(cluster.url, 'run-1', 'teamline writer A');
    try {
      const second = takeWriterLock(cluster.url, 'run-1', 'teamline writer B');
      await expect(second).rejects.toThrow(LockedError);
      await expect(second).rejects.toThrow(`run run-1 has a writer already: PostgreSQL backend pid ${first.backendPid} ("teamline writer A", from 127.0.0.1) holds its lock; the server frees it when that connection ends`);
      const other = await takeWriterLock(cluster.url, 'run-2', 'teamline writer B');
      await other.release();
    } finally {
      await first.release();
    }
    const after = await takeWriterLock(cluster.url, 'run-1');
    expect(await backendAlive(after.backendPid)).toBe(true);
    await after.release();
    expect(await backendAlive(after.backendPid)).toBe(false);
  });

  it('names a writer by run, host and pid unless told otherwise', async () => {
    const lock = await takeWriterLock(cluster.url, 'run-3');
    const { rows } = await watcher.query<{ application_name: string }>('SELECT application_name FROM pg_stat_activity WHERE pid = $1', [lock.backendPid]);
    await lock.release();
    expect(rows[0]!.application_name).toBe(writerName('run-3'));
    expect(writerName('run-3')).toMatch(new RegExp(`^teamline writer of run-3 on .+ pid ${process.pid}$`));
  });

  it('is freed by the server when its holder is killed with kill -9', async () => {
    const child = execa('node', [join(ROOT, 'test/fixtures/lock/pg-writer.mjs'), cluster.url, 'run-9'], { reject: false, buffer: false });
    try {
      const backendPid = await new Promise<number>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          const m = /locked (\d+)/.exec(chunk.toString());
          if (m) resolve(Number(m[1]));
        });
        child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before it took the lock`)));
      });
      await expect(takeWriterLock(cluster.url, 'run-9')).rejects.toThrow(new RegExp(`PostgreSQL backend pid ${backendPid} \\("teamline writer of run-9 on .+ pid ${child.pid}", from 127\\.0\\.0\\.1\\)`));
      child.kill('SIGKILL');
      await child;
      // The server ends the backend once it reads the closed socket; then the lock is free.
      for (let look = 0; (await backendAlive(backendPid)) && look < 600; look++) await new Promise((r) => setTimeout(r, 50));
      const taken = await takeWriterLock(cluster.url, 'run-9');
      expect(taken.backendPid).not.toBe(backendPid);
      await taken.release();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('says when its connection is lost, so that its writer stops', async () => {
    const lock = await takeWriterLock(cluster.url, 'run-4');
    await watcher.query('SELECT pg_terminate_backend($1)', [lock.backendPid]);
    const lost = await lock.lost;
    expect(lost.message).toMatch(/terminat|connection/i);
    const again = await takeWriterLock(cluster.url, 'run-4');
    await again.release();
    await lock.release();
  });
});

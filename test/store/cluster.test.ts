// The private cluster the store tests run on.
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startCluster } from '../helpers/postgres.js';

describe('test/helpers/postgres', () => {
  it('starts a cluster on 127.0.0.1 that takes a password, and stop() ends it and removes its folder', async () => {
    const cluster = await startCluster();
    let stopped = false;
    try {
      const client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      const { rows } = await client.query<{ addr: string; port: number; sock: string }>("select inet_server_addr()::text as addr, current_setting('port')::int as port, current_setting('unix_socket_directories') as sock");
      await client.end();
      expect(rows[0]).toEqual({ addr: '127.0.0.1/32', port: cluster.port, sock: cluster.dir });
      const wrong = new pg.Client({ connectionString: cluster.url.replace(/:[0-9a-f]{32}@/, ':wrong@') });
      await expect(wrong.connect()).rejects.toThrow(/password authentication failed/);
      await cluster.stop();
      stopped = true;
      expect(existsSync(cluster.dir)).toBe(false);
      const left = await execa('ps', ['-eo', 'pid,args'], { reject: false });
      expect(left.stdout).not.toContain(cluster.dir);
    } finally {
      if (!stopped) await cluster.stop();
    }
  });

  it('is stopped and removed by its watchdog when the process that started it dies first', async () => {
    const owner = execa('sleep', ['600'], { reject: false });
    const cluster = await startCluster({ owner: owner.pid });
    try {
      expect((await execa('ps', ['-eo', 'args'])).stdout).toContain(`-D ${cluster.dir}/data`);
      owner.kill('SIGKILL');
      await owner;
      // The processes whose command line names the cluster's folder: the server's, the watchdog's.
      const naming = async () => (await execa('ps', ['-eo', 'args'])).stdout.split('\n').filter((line) => line.includes(cluster.dir));
      // The watchdog's shell ends just after its rm has removed the folder: looked at until both are gone.
      for (let look = 0; (existsSync(cluster.dir) || (await naming()).length > 0) && look < 600; look++) await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(cluster.dir)).toBe(false);
      expect(await naming()).toEqual([]);
    } finally {
      owner.kill('SIGKILL');
      await cluster.stop();
    }
  });
});

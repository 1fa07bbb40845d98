// A private PostgreSQL cluster for the store tests: initdb in a fresh temporary folder, a free port on
// 127.0.0.1, its socket in that folder, a random password; stopped and removed by stop(), and by a
// watchdog when the test process dies first. Never the system's cluster.
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

// A running private cluster.
export interface PgCluster {
  /** postgres://teamline:<password>@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** The temporary folder: data/, the socket, the server log. */
  dir: string;
  /** Stops the server (immediate mode) and removes the folder. */
  stop(): Promise<void>;
  /** Stops the server as a crash would (`pg_ctl stop -m immediate`), waits `downMs`, starts it again on its port. */
  restart(downMs: number): Promise<void>;
}

// The superuser the cluster is made with.
const SUPERUSER = 'teamline';
// Where Debian puts each major version's programs.
const PG_ROOT = '/usr/lib/postgresql';

// The bin folder of the newest PostgreSQL installed; a missing one says how to install it.
export function findPgBin(): string {
  const versions = existsSync(PG_ROOT) ? readdirSync(PG_ROOT).filter((v) => existsSync(join(PG_ROOT, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL under ${PG_ROOT}/*/bin: install the Debian package postgresql (.ci/run does)`);
  return join(PG_ROOT, newest, 'bin');
}

// Starts a new cluster; it listens on 127.0.0.1 only. Its watchdog stops it once `owner` (by
// default this process) is gone. `durable` keeps fsync and synchronous commits on, so that what it
// acknowledged survives a crash (`restart`): a test of a restart needs it.
export async function startCluster(options: { owner?: number; durable?: boolean } = {}): Promise<PgCluster> {
  const bin = findPgBin();
  const dir = mkdtempSync(join(tmpdir(), 'teamline-pg-'));
  const as = await runAs();
  const password = randomBytes(16).toString('hex');
  const data = join(dir, 'data');
  writeFileSync(join(dir, 'pwfile'), `${password}\n`, { mode: 0o600 });
  if (as.owner) for (const path of [dir, join(dir, 'pwfile')]) chownSync(path, as.owner.uid, as.owner.gid);
  const run = (program: string, args: string[]) => {
    const [command, ...rest] = [...as.prefix, join(bin, program), ...args];
    return execa(command!, rest, { cwd: dir, env: { LC_ALL: 'C' }, stdin: 'ignore' });
  };
  try {
    await run('initdb', ['-D', data, '-U', SUPERUSER, '--pwfile', join(dir, 'pwfile'), '--auth=scram-sha-256', '--no-sync', '-E', 'UTF8', '--locale=C']);
    const durable = options.durable === true;
    const port = await startServer(run, dir, data, durable);
    const restart = async (downMs: number) => {
      await run('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await run('pg_ctl', ['start', '-w', '-t', '120', '-D', data, '-l', join(dir, 'server.log'), '-o', serverOptions(port, dir, durable)]);
    };
    const watchdog = startWatchdog(options.owner ?? process.pid, as.prefix, bin, dir, data);
    const url = `postgres://${SUPERUSER}:${password}@127.0.0.1:${port}/postgres`;
    const stop = async () => {
      await run('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']).catch(() => undefined);
      try {
        if (watchdog.pid) process.kill(-watchdog.pid, 'SIGKILL');
      } catch {
        // The watchdog is gone already: it stopped the cluster itself.
      }
      rmSync(dir, { recursive: true, force: true });
    };
    return { url, port, dir, stop, restart };
  } catch (error) {
    await run('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

type Run = (program: string, args: string[]) => Promise<unknown>;

// pg_ctl start on a free port; a port taken between the probe and the start is tried again.
async function startServer(run: Run, dir: string, data: string, durable: boolean): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      await run('pg_ctl', ['start', '-w', '-t', '120', '-D', data, '-l', join(dir, 'server.log'), '-o', serverOptions(port, dir, durable)]);
      return port;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

// The server's options: loopback only, its socket in the cluster's folder; unless `durable`, no
// durability (a test's data need not survive a crash).
function serverOptions(port: number, dir: string, durable: boolean): string {
  const fast = durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  return `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}${fast} -c shared_buffers=16MB`;
}

// A port nothing listens on now, on 127.0.0.1.
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

// initdb and postgres refuse to run as root: as root, they run as the `postgres` system user.
async function runAs(): Promise<{ prefix: string[]; owner?: { uid: number; gid: number } }> {
  if (process.getuid?.() !== 0) return { prefix: [] };
  const id = async (flag: string) => Number((await execa('id', [flag, 'postgres'])).stdout.trim());
  return { prefix: ['runuser', '-u', 'postgres', '--'], owner: { uid: await id('-u'), gid: await id('-g') } };
}

// A detached shell that stops the server and removes the folder once `owner` is gone, so a test
// process killed before its afterAll leaves no server behind.
function startWatchdog(owner: number, prefix: string[], bin: string, dir: string, data: string) {
  const stop = [...prefix, join(bin, 'pg_ctl'), 'stop', '-D', data, '-m', 'immediate'].map((word) => `'${word}'`).join(' ');
  const script = `while kill -0 ${owner} 2>/dev/null; do sleep 1; done; ${stop} >/dev/null 2>&1; rm -rf '${dir}'`;
  const child = execa('sh', ['-c', script], { detached: true, stdio: 'ignore', cleanup: false, reject: false });
  child.unref();
  return child;
}

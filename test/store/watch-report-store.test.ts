// `team report --store URL` and `team watch --store URL` read a run from PostgreSQL through the built
// CLI and show what the files show for the same log.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/store/file-store.js';
import { PgStore } from '../../src/store/pg-store.js';
import type { RunStore } from '../../src/store/types.js';
import { Driver } from '../machines/drive.js';
import { toExec, toVerify, verifyOnce } from '../machines/routes.js';
import { startCluster, type PgCluster } from '../helpers/postgres.js';
import { CLI, runTeam } from '../helpers/team.js';
import { takeWriterLock } from '../../src/store/pg-writer-lock.js';
import { makeDatabase } from './pg-fixture.js';
import { appendSteps, RUN_FIELDS, toSteps } from './records.js';

let cluster: PgCluster;
let project: string;
beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(async () => {
  await cluster?.stop();
});
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), 'teamline-watch-report-store-'));
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

// A run whose task failed once, was retried and passed verify, written to `store` as `runId`.
async function writeRun(store: RunStore, runId: string): Promise<void> {
  await store.createRun(RUN_FIELDS, runId);
  await appendSteps(store, runId, toSteps(verifyOnce(toVerify(toExec(new Driver()), { t1: 1 }), 'pass').log));
}

// The same log in a fresh database and in the project's files; returns the database's URL.
async function bothStores(runId: string): Promise<string> {
  const url = await makeDatabase(cluster.url);
  const pg = await PgStore.open(url);
  await writeRun(pg, runId);
  await pg.close();
  await writeRun(new FileStore(project, { fsync: false }), runId);
  return url;
}

// The data embedded in a report page.
function embedded(file: string): any {
  const json = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(readFileSync(file, 'utf8'))![1]!;
  return JSON.parse(json);
}

// The times and names each store picks itself taken out (each stamps its own `at`).
function comparable(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, v: unknown) => (/^(at|created_at|start|end|file)$/.test(key) ? '-' : v));
}

const hidden = (url: string) => url.replace(/:[0-9a-f]{32}@/, ':***@');

describe('team report --store', () => {
  it('writes a page whose attempts and events are those of the files for the same log', async () => {
    const url = await bothStores('run-1');
    const fromPg = await runTeam(['report', '--store', url, '--run', 'run-1', '--out', join(project, 'pg.html')], { cwd: project });
    const fromFiles = await runTeam(['report', '--run', 'run-1', '--out', join(project, 'files.html')], { cwd: project });
    expect(fromPg).toMatchObject({ exitCode: 0, stderr: '', stdout: `${join(project, 'pg.html')}\n` });
    expect(fromFiles.exitCode).toBe(0);
    const pg = embedded(join(project, 'pg.html'));
    const files = embedded(join(project, 'files.html'));
    expect(pg.attempts.length).toBeGreaterThanOrEqual(3);
    expect(pg.attempts.some((a: { status: string }) => a.status === 'failed')).toBe(true);
    expect(comparable(pg.attempts)).toEqual(comparable(files.attempts));
    expect(pg.events.length).toBe(files.events.length);
    expect(comparable(pg.events)).toEqual(comparable(files.events));
    expect(comparable({ ...pg, generatedAt: 0, events: [], attempts: [], handoffs: [], bands: pg.bands.length })).toEqual(
      comparable({ ...files, generatedAt: 0, events: [], attempts: [], handoffs: [], bands: files.bands.length }),
    );
    expect(pg.status).toBe('completed');
    // Handoff texts are files of the writer's machine: the page names each one the log records and says it is not stored.
    const logged = pg.events.filter((e: { event: string }) => e.event === 'handoff_written');
    expect(logged.length).toBeGreaterThan(0);
    expect(pg.handoffs).toHaveLength(logged.length);
    for (const [i, h] of pg.handoffs.entries()) {
      const { path, sha256 } = JSON.parse(logged[i].detail);
      expect(h.text).toBe(`(not stored in PostgreSQL yet: the log records ${path}, sha256 ${sha256})`);
    }
  });

  it('writes report-<run>.html in the project for the store team.store names, the latest run by default', async () => {
    const url = await bothStores('run-1');
    rmSync(join(project, '.team'), { recursive: true });
    mkdirSync(join(project, '.team'));
    writeFileSync(join(project, '.team', 'config.json'), JSON.stringify({ team: { store: url } }));
    const made = await runTeam(['report'], { cwd: project });
    expect(made).toMatchObject({ exitCode: 0, stderr: '', stdout: `${join(project, 'report-run-1.html')}\n` });
    expect(embedded(join(project, 'report-run-1.html')).run.run_id).toBe('run-1');
    expect(existsSync(join(project, '.team', 'runs'))).toBe(false);
  });

  it('refuses a bad --store, a missing run and an empty store, exit 2, writing nothing', async () => {
    const bad = await runTeam(['report', '--store', 'mysql://db/x', '--out', join(project, 'r.html')], { cwd: project });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--store: "mysql://db/x" is not a PostgreSQL URL');
    const url = await makeDatabase(cluster.url);
    const empty = await runTeam(['report', '--store', url], { cwd: project });
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain(`no run in ${hidden(url)}: the store has none`);
    const missing = await runTeam(['report', '--store', url, '--run', 'nope'], { cwd: project });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`--run: no run nope in ${hidden(url)}`);
    const folder = await runTeam(['report', '--store', url, '--out', project], { cwd: project });
    expect(folder.exitCode).toBe(2);
    expect(folder.stderr).toContain(`--out: ${project} is a folder, not a file`);
    expect(readdirSync(project)).toEqual([]);
  });

  it('says which store cannot be reached, exit 1, without its password', async () => {
    const url = 'postgres://teamline:secret@127.0.0.1:1/postgres';
    for (const args of [['report', '--store', url], ['watch', '--store', url], ['status', '--watch', '--store', url]]) {
      const down = await runTeam(args, { cwd: project });
      expect(down.exitCode, args.join(' ')).toBe(1);
      expect(down.stderr).toContain('the store postgres://teamline:***@127.0.0.1:1/postgres cannot be reached (connect ECONNREFUSED 127.0.0.1:1)');
      expect(down.stderr).not.toContain('secret');
    }
    expect(readdirSync(project)).toEqual([]);
  });
});

describe('team watch --store', () => {
  it('prints the plain lines the files give for the same log, and ends with the run', async () => {
    const url = await bothStores('run-1');
    const fromFiles = await runTeam(['watch', '--run', 'run-1'], { cwd: project });
    expect(fromFiles.exitCode).toBe(0);
    expect(fromFiles.stdout).toContain('run completed');
    for (const args of [['watch', '--store', url, '--run', 'run-1'], ['status', '--watch', '--store', url]]) {
      const fromPg = await runTeam(args, { cwd: project });
      expect(fromPg.stderr, args[0]).toBe('');
      expect(fromPg.exitCode).toBe(0);
      expect(fromPg.stdout).toBe(fromFiles.stdout);
    }
  });

  it('says a run is undriven unless a writer holds its lock in the database, and ends when the run does', async () => {
    const url = await makeDatabase(cluster.url);
    const pg = await PgStore.open(url);
    try {
      for (const [runId, withWriter] of [['run-a', false], ['run-b', true]] as const) {
        const driver = toExec(new Driver());
        const begun = driver.log.length;
        const rest = toSteps(verifyOnce(toVerify(driver), 'pass').log.slice(begun));
        await pg.createRun(RUN_FIELDS, runId);
        await appendSteps(pg, runId, toSteps(driver.log.slice(0, begun)));
        const lock = withWriter ? await takeWriterLock(url, runId) : undefined;
        const watch = execa('node', [CLI, 'watch', '--store', url, '--run', runId, '--interval', '100'], { cwd: project, reject: false, stdin: 'ignore' });
        let out = '';
        watch.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
        let ended;
        try {
          // The running attempt's lane is the frame's last line before its attention lines.
          while (!out.includes('t1 a1 team-exec running') && watch.exitCode === null) await new Promise((r) => setTimeout(r, 50));
          if (!withWriter) while (!out.includes('needs attention: no orchestrator') && watch.exitCode === null) await new Promise((r) => setTimeout(r, 50));
          await appendSteps(pg, runId, rest);
          ended = await watch;
        } finally {
          watch.kill();
          await lock?.release();
        }
        expect(ended.exitCode, runId).toBe(0);
        expect(ended.stdout).toContain('run completed');
        const undriven = `needs attention: no orchestrator drives this run: no writer holds its lock in ${hidden(url)}`;
        if (withWriter) expect(ended.stdout).not.toContain('no orchestrator');
        else expect(ended.stdout).toContain(undriven);
      }
    } finally {
      await pg.close();
    }
  });

  it('refuses a --store that is not a PostgreSQL URL and a missing run, exit 2', async () => {
    const bad = await runTeam(['watch', '--store', 'localhost:5432'], { cwd: project });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--store: "localhost:5432" is not a PostgreSQL URL');
    const url = await makeDatabase(cluster.url);
    const missing = await runTeam(['status', '--watch', '--store', url, '--run', 'nope'], { cwd: project });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`--run: no run nope in ${hidden(url)}`);
  });
});

// `team watch --store URL` (and `team status --watch --store`) reads a run from PostgreSQL through the
// built CLI and prints the plain lines the files give for the same log.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { PgStore } from '../../src/store/pg/store.js';
import { takeWriterLock } from '../../src/store/pg/writer-lock.js';
import { Driver } from '../machines/drive.js';
import { toExec, toVerify, verifyOnce } from '../machines/routes.js';
import { CLI, runTeam } from '../helpers/team.js';
import { bothStores, hidden } from './both-stores.js';
import { clusterAndProject, makeDatabase } from './pg-fixture.js';
import { appendSteps, RUN_FIELDS, toSteps } from './records.js';

const env = clusterAndProject('teamline-watch-store-');

describe('team watch --store', () => {
  it('prints the plain lines the files give for the same log, and ends with the run', async () => {
    const url = await bothStores(env.cluster.url, env.project, 'run-1');
    const fromFiles = await runTeam(['watch', '--run', 'run-1'], { cwd: env.project });
    expect(fromFiles.exitCode).toBe(0);
    expect(fromFiles.stdout).toContain('run completed');
    for (const args of [['watch', '--store', url, '--run', 'run-1'], ['status', '--watch', '--store', url]]) {
      const fromPg = await runTeam(args, { cwd: env.project });
      expect(fromPg.stderr, args[0]).toBe('');
      expect(fromPg.exitCode).toBe(0);
      expect(fromPg.stdout).toBe(fromFiles.stdout);
    }
  });

  it('says a run is undriven unless a writer holds its lock in the database, and ends when the run does', async () => {
    const url = await makeDatabase(env.cluster.url);
    const pg = await PgStore.open(url);
    try {
      for (const [runId, withWriter] of [['run-a', false], ['run-b', true]] as const) {
        const driver = toExec(new Driver());
        const begun = driver.log.length;
        const rest = toSteps(verifyOnce(toVerify(driver), 'pass').log.slice(begun));
        await pg.createRun(RUN_FIELDS, runId);
        await appendSteps(pg, runId, toSteps(driver.log.slice(0, begun)));
        const lock = withWriter ? await takeWriterLock(url, runId) : undefined;
        const watch = execa('node', [CLI, 'watch', '--store', url, '--run', runId, '--interval', '100'], { cwd: env.project, reject: false, stdin: 'ignore' });
        let out = '';
        watch.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
        let ended;
        try {
          // The running attempt's lane is the frame's last line before its attention lines.
          while (!out.includes('t1 a1 team-exec running') && watch.exitCode === null) await new Promise((r) => setTimeout(r, 50));
          if (!withWriter) while (!out.includes('nothing drives this run') && watch.exitCode === null) await new Promise((r) => setTimeout(r, 50));
          await appendSteps(pg, runId, rest);
          ended = await watch;
        } finally {
          watch.kill();
          await lock?.release();
        }
        expect(ended.exitCode, runId).toBe(0);
        expect(ended.stdout).toContain('run completed');
        const undriven = `nothing drives this run: no writer holds its lock in ${hidden(url)}; \`team resume --run ${runId} --store ${hidden(url)}\` continues it`;
        if (withWriter) expect(ended.stdout).not.toContain('nothing drives');
        else expect(ended.stdout).toContain(undriven);
      }
    } finally {
      await pg.close();
    }
  });

  it('refuses a --store that is not a PostgreSQL URL and a missing run, exit 2', async () => {
    const bad = await runTeam(['watch', '--store', 'localhost:5432'], { cwd: env.project });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--store: "localhost:5432" is not a PostgreSQL URL');
    const url = await makeDatabase(env.cluster.url);
    const missing = await runTeam(['status', '--watch', '--store', url, '--run', 'nope'], { cwd: env.project });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`--run: no run nope in ${hidden(url)}`);
  });
});

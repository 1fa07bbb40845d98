// `team report --store URL` reads a run from PostgreSQL through the built CLI and writes the page the
// files give for the same log.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTeam } from '../helpers/team.js';
import { bothStores, hidden } from './both-stores.js';
import { clusterAndProject, makeDatabase } from './pg-fixture.js';

const env = clusterAndProject('teamline-report-store-');

// The data embedded in a report page.
function embedded(file: string): any {
  const json = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(readFileSync(file, 'utf8'))![1]!;
  return JSON.parse(json);
}

// The times and names each store picks itself taken out (each stamps its own `at`).
function comparable(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, v: unknown) => (/^(at|created_at|start|end|file)$/.test(key) ? '-' : v));
}

describe('team report --store', () => {
  it('writes a page whose attempts and events are those of the files for the same log', async () => {
    const url = await bothStores(env.cluster.url, env.project, 'run-1');
    const fromPg = await runTeam(['report', '--store', url, '--run', 'run-1', '--out', join(env.project, 'pg.html')], { cwd: env.project });
    const fromFiles = await runTeam(['report', '--run', 'run-1', '--out', join(env.project, 'files.html')], { cwd: env.project });
    expect(fromPg).toMatchObject({ exitCode: 0, stderr: '', stdout: `${join(env.project, 'pg.html')}\n` });
    expect(fromFiles.exitCode).toBe(0);
    const pg = embedded(join(env.project, 'pg.html'));
    const files = embedded(join(env.project, 'files.html'));
    expect(pg.attempts.length).toBeGreaterThanOrEqual(3);
    expect(pg.attempts.some((a: { status: string }) => a.status === 'failed')).toBe(true);
    expect(comparable(pg.attempts)).toEqual(comparable(files.attempts));
    expect(pg.events.length).toBe(files.events.length);
    expect(comparable(pg.events)).toEqual(comparable(files.events));
    expect(comparable({ ...pg, generatedAt: 0, events: [], attempts: [], handoffs: [], bands: pg.bands.length })).toEqual(
      comparable({ ...files, generatedAt: 0, events: [], attempts: [], handoffs: [], bands: files.bands.length }),
    );
    expect(pg.status).toBe('completed');
    // A log whose handoff_written records hold no text (an older writer's): the page names each file and says where it is.
    const logged = pg.events.filter((e: { event: string }) => e.event === 'handoff_written');
    expect(logged.length).toBeGreaterThan(0);
    expect(pg.handoffs).toHaveLength(logged.length);
    for (const [i, h] of pg.handoffs.entries()) {
      const { path, sha256 } = JSON.parse(logged[i].detail);
      expect(h.text).toBe(`(not in this log: it records ${path}, sha256 ${sha256}, a file of the machine that wrote it)`);
    }
  });

  it('writes report-<run>.html in the env.project for the store team.store names, the latest run by default', async () => {
    const url = await bothStores(env.cluster.url, env.project, 'run-1');
    rmSync(join(env.project, '.team'), { recursive: true });
    mkdirSync(join(env.project, '.team'));
    writeFileSync(join(env.project, '.team', 'config.json'), JSON.stringify({ team: { store: url } }));
    const made = await runTeam(['report'], { cwd: env.project });
    expect(made).toMatchObject({ exitCode: 0, stderr: '', stdout: `${join(env.project, 'report-run-1.html')}\n` });
    expect(embedded(join(env.project, 'report-run-1.html')).run.run_id).toBe('run-1');
    expect(existsSync(join(env.project, '.team', 'runs'))).toBe(false);
  });

  it('refuses a bad --store, a missing run and an empty store, exit 2, writing nothing', async () => {
    const bad = await runTeam(['report', '--store', 'mysql://db/x', '--out', join(env.project, 'r.html')], { cwd: env.project });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--store: "mysql://db/x" is not a PostgreSQL URL');
    const url = await makeDatabase(env.cluster.url);
    const empty = await runTeam(['report', '--store', url], { cwd: env.project });
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain(`no run in ${hidden(url)}: the store has none`);
    const missing = await runTeam(['report', '--store', url, '--run', 'nope'], { cwd: env.project });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`--run: no run nope in ${hidden(url)}`);
    const folder = await runTeam(['report', '--store', url, '--out', env.project], { cwd: env.project });
    expect(folder.exitCode).toBe(2);
    expect(folder.stderr).toContain(`--out: ${env.project} is a folder, not a file`);
    expect(readdirSync(env.project)).toEqual([]);
  });

  it('says which store cannot be reached, exit 1, without its password', async () => {
    const url = 'postgres://teamline:secret@127.0.0.1:1/postgres';
    for (const args of [['report', '--store', url], ['watch', '--store', url], ['status', '--watch', '--store', url]]) {
      const down = await runTeam(args, { cwd: env.project });
      expect(down.exitCode, args.join(' ')).toBe(1);
      expect(down.stderr).toContain('the store postgres://teamline:***@127.0.0.1:1/postgres cannot be reached (connect ECONNREFUSED 127.0.0.1:1)');
      expect(down.stderr).not.toContain('secret');
    }
    expect(readdirSync(env.project)).toEqual([]);
  });
});


// `team status --store URL` (and team.store) reads a run from PostgreSQL through the built CLI,
// and shows what the files would show for the same log.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../src/store/files/store.js';
import { PgStore } from '../../src/store/pg/store.js';
import type { RunStore } from '../../src/store/types.js';
import { Driver } from '../machines/drive.js';
import { toExec, toVerify, verifyOnce } from '../machines/routes.js';
import { runTeam } from '../helpers/team.js';
import { clusterAndProject, makeDatabase } from './pg-fixture.js';
import { appendSteps, RUN_FIELDS, toSteps } from './records.js';

const env = clusterAndProject('teamline-status-store-');

// A run that passed verify, written to `store` as `runId`.
async function writeRun(store: RunStore, runId: string): Promise<void> {
  await store.createRun(RUN_FIELDS, runId);
  await appendSteps(store, runId, toSteps(verifyOnce(toVerify(toExec(new Driver())), 'pass').log));
}

// The --json document with the times and names each store picks itself taken out.
function comparable(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => (/^(at|created_at|startedAt|finishedAt|file)$/.test(key) ? '-' : value));
}

const hidden = (url: string) => url.replace(/:[0-9a-f]{32}@/, ':***@');

describe('team status --store', () => {
  it('shows a run read from PostgreSQL as the files show the same log', async () => {
    const url = await makeDatabase(env.cluster.url);
    const pg = await PgStore.open(url);
    await writeRun(pg, 'run-1');
    await pg.close();
    await writeRun(new FileStore(env.project, { fsync: false }), 'run-1');
    const fromPg = await runTeam(['status', '--store', url, '--run', 'run-1', '--json'], { cwd: env.project });
    const fromFiles = await runTeam(['status', '--run', 'run-1', '--json'], { cwd: env.project });
    expect(fromPg.stderr).toBe('');
    expect(fromPg.exitCode).toBe(0);
    expect(comparable(fromPg.stdout)).toEqual(comparable(fromFiles.stdout));
    expect(JSON.parse(fromPg.stdout)).toMatchObject({ status: 'completed', run: { run_id: 'run-1' } });
    const text = await runTeam(['status', '--store', url], { cwd: env.project });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('run-1');
  });

  it('reads the store team.store names, and says when it holds no run', async () => {
    const url = await makeDatabase(env.cluster.url);
    mkdirSync(join(env.project, '.team'));
    writeFileSync(join(env.project, '.team', 'config.json'), JSON.stringify({ team: { store: url } }));
    const empty = await runTeam(['status'], { cwd: env.project });
    expect(empty).toMatchObject({ exitCode: 0, stdout: `no run in ${hidden(url)}: the store has no run, and so no approvals\n` });
    const pg = await PgStore.open(url);
    await writeRun(pg, 'run-a');
    await pg.createRun(RUN_FIELDS, 'run-b');
    await pg.close();
    const latest = await runTeam(['status', '--json'], { cwd: env.project });
    expect(JSON.parse(latest.stdout).run.run_id).toBe('run-b');
    const named = await runTeam(['status', '--run', 'run-a', '--json'], { cwd: env.project });
    expect(JSON.parse(named.stdout).status).toBe('completed');
    const unknown = await runTeam(['status', '--run', 'nope'], { cwd: env.project });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain(`--run: no run nope in ${hidden(url)}`);
    expect(existsSync(join(env.project, '.team', 'runs'))).toBe(false);
  });

  it('leaves the commands that do not work on a store refusing a team.store, exit 2; a run on a store that cannot be reached fails naming it; nothing written', async () => {
    mkdirSync(join(env.project, '.team'));
    writeFileSync(join(env.project, '.team', 'config.json'), JSON.stringify({ team: { store: 'postgres://teamline:secret@127.0.0.1:1/postgres' } }));
    for (const args of [['clean'], ['state', 'approve', '--stage', 'team-plan', '--artifact', 'x', '--by', 'ann']]) {
      const refused = await runTeam(args, { cwd: env.project });
      expect(refused.exitCode, args[0]).toBe(2);
      expect(refused.stderr).toContain(`config ${join(env.project, '.team', 'config.json')}: team.store names a PostgreSQL store, which only \`team\`, \`team ralph\`, \`team resume\`, \`team cancel\`, \`team wait\`, \`team worker\`, \`team status\`, \`team watch\`, \`team report\`, \`team list\`, \`team approve\` and \`team land\` work on so far; this command works on the files under .team/runs: remove team.store to use it`);
      expect(refused.stderr).not.toContain('secret');
    }
    for (const args of [['add a greeting', '--agent', 'sim'], ['resume'], ['cancel'], ['wait'], ['list'], ['land']]) {
      const failed = await runTeam(args, { cwd: env.project });
      expect(failed.exitCode, args[0]).toBe(1);
      expect(failed.stderr).toContain('the store postgres://teamline:***@127.0.0.1:1/postgres cannot be reached');
      expect(failed.stderr).not.toContain('secret');
    }
    expect(existsSync(join(env.project, '.team', 'runs'))).toBe(false);
    expect(existsSync(join(env.project, '.team', 'store-runs'))).toBe(false);
  });

  it('refuses a --store or team.store that is not a PostgreSQL URL, exit 2, writing nothing', async () => {
    const bad = await runTeam(['status', '--store', 'mysql://db/x', '--run', 'run-1'], { cwd: env.project });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--store: "mysql://db/x" is not a PostgreSQL URL (postgres://user:password@host:port/database)');
    expect(existsSync(join(env.project, '.team'))).toBe(false);
    mkdirSync(join(env.project, '.team'));
    writeFileSync(join(env.project, '.team', 'config.json'), JSON.stringify({ team: { store: 'localhost:5432' } }));
    const config = await runTeam(['status'], { cwd: env.project });
    expect(config.exitCode).toBe(2);
    expect(config.stderr).toMatch(/✖ not a PostgreSQL URL: postgres:\/\/user:password@host:port\/database\n\s+→ at team\.store/);
  });

  it('says which store cannot be reached, exit 1', async () => {
    const url = 'postgres://teamline:secret@127.0.0.1:1/postgres';
    const down = await runTeam(['status', '--store', url], { cwd: env.project });
    expect(down.exitCode).toBe(1);
    expect(down.stderr).toContain('the store postgres://teamline:***@127.0.0.1:1/postgres cannot be reached (connect ECONNREFUSED 127.0.0.1:1)');
    expect(down.stderr).not.toContain('secret');
  });
});

describe('team list --store', () => {
  it('lists the store\'s runs oldest first, with the rows the files give for the same logs; an empty store says so', async () => {
    const url = await makeDatabase(env.cluster.url);
    const empty = await runTeam(['list', '--store', url], { cwd: env.project });
    expect(empty).toMatchObject({ exitCode: 0, stdout: `no run in ${hidden(url)}\n` });
    const pg = await PgStore.open(url);
    await writeRun(pg, 'run-1');
    await pg.createRun(RUN_FIELDS, 'run-2');
    await pg.close();
    const files = new FileStore(env.project, { fsync: false });
    await writeRun(files, 'run-1');
    await files.createRun(RUN_FIELDS, 'run-2');
    const fromPg = await runTeam(['list', '--store', url, '--json'], { cwd: env.project });
    expect(fromPg.stderr).toBe('');
    const fromFiles = await runTeam(['list', '--json'], { cwd: env.project });
    const rows = JSON.parse(fromPg.stdout) as Array<{ id: string; status: string; started: string; seconds: number }>;
    expect(rows.map((row) => [row.id, row.status])).toEqual([['run-1', 'completed'], ['run-2', 'running']]);
    // The same rows but for the times each store stamped itself.
    const timeless = (text: string) => (JSON.parse(text) as Array<Record<string, unknown>>).map(({ started: _s, seconds: _d, ...rest }) => rest);
    expect(timeless(fromPg.stdout)).toEqual(timeless(fromFiles.stdout));
    // team.store names it too; the table shows both runs.
    writeFileSync(join(env.project, '.team', 'config.json'), JSON.stringify({ team: { store: url } }));
    const table = await runTeam(['list'], { cwd: env.project });
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout.split('\n').filter((line) => /^run-\d/.test(line)).map((line) => line.split(/\s+/).slice(0, 3))).toEqual([
      ['run-1', RUN_FIELDS.mode, 'completed'],
      ['run-2', RUN_FIELDS.mode, 'running'],
    ]);
  });
});

describe('team approve --store', () => {
  it('records the approval in the store, where status shows it, and stale once the artifact changes; a run the store lacks is refused, nothing written', async () => {
    const url = await makeDatabase(env.cluster.url);
    const pg = await PgStore.open(url);
    await writeRun(pg, 'run-1');
    await pg.close();
    writeFileSync(join(env.project, 'plan.md'), '# the plan\n');
    const approved = await runTeam(['approve', '--store', url, '--stage', 'team-plan', '--artifact', 'plan.md', '--by', 'ann', '--note', 'looks right'], { cwd: env.project });
    expect(approved.stderr).toBe('');
    expect(approved.exitCode).toBe(0);
    expect(approved.stdout).toMatch(/^approved plan\.md \(sha256 [0-9a-f]{12}…\) for team-plan by ann\n$/);
    const status = async () => JSON.parse((await runTeam(['status', '--store', url, '--json'], { cwd: env.project })).stdout) as { approvals: Array<{ stage: string; artifact: string; by: string; note: string; stale: boolean }> };
    expect((await status()).approvals).toMatchObject([{ stage: 'team-plan', artifact: 'plan.md', by: 'ann', note: 'looks right', stale: false }]);
    writeFileSync(join(env.project, 'plan.md'), '# the plan, changed\n');
    expect((await status()).approvals).toMatchObject([{ artifact: 'plan.md', stale: true }]);
    const unknown = await runTeam(['approve', '--store', url, '--run', 'nope', '--stage', 'team-plan', '--artifact', 'plan.md', '--by', 'ann'], { cwd: env.project });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain(`--run: no run nope in ${hidden(url)}`);
    expect((await status()).approvals).toHaveLength(1);
    expect(existsSync(join(env.project, '.team'))).toBe(false);
  });
});

describe('team land --store', () => {
  it('refuses a run that is not completed, and one that ran without worktrees, exit 2, recording nothing', async () => {
    const url = await makeDatabase(env.cluster.url);
    const pg = await PgStore.open(url);
    await writeRun(pg, 'run-1');
    await pg.createRun(RUN_FIELDS, 'run-2');
    const running = await runTeam(['land', '--store', url], { cwd: env.project });
    expect(running.exitCode).toBe(2);
    expect(running.stderr).toContain('team land: run run-2 is running; only a completed run lands');
    const shared = await runTeam(['land', '--store', url, '--run', 'run-1'], { cwd: env.project });
    expect(shared.exitCode).toBe(2);
    expect(shared.stderr).toContain('team land: run run-1 ran without worktrees');
    for (const id of ['run-1', 'run-2']) expect((await pg.read(id)).events.filter((e) => e.event === 'branch_landed')).toEqual([]);
    await pg.close();
  });
});

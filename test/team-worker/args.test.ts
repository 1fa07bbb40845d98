// `team worker` refuses bad arguments with exit 2, naming the argument, before it connects or writes.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTeam } from '../helpers/team.js';

const dir = mkdtempSync(join(tmpdir(), 'teamline-worker-args-'));
// Store files and clones live beside `dir`, which must stay empty.
const scratch = mkdtempSync(join(tmpdir(), 'teamline-worker-scratch-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});
const STORE = ['--store', 'postgres://u:p@127.0.0.1:1/db'];

describe('team worker arguments', () => {
  const cases: Array<[string[], string]> = [
    [[], `team worker: no store: give --store URL, --store-file FILE, TEAM_STORE, or team.store in ${dir}/.team/config.json`],
    [[...STORE, '--store-file', '/nonexistent'], 'team worker: give --store or --store-file, not both'],
    [['--store', 'http://example.org/db'], 'team worker: --store must be a PostgreSQL URL (postgres://user:password@host:port/database)'],
    [[...STORE, '--max', '0'], 'team worker: --max must be a whole number from 1 to 20, not "0"'],
    [[...STORE, '--lease-ttl', '1'], 'team worker: --lease-ttl must be a whole number from 2 to 3600, not "1"'],
    [[...STORE, '--labels', 'gpu,has space'], 'team worker: --labels must be a comma-separated list of names (letters, digits, . _ -), not "gpu,has space"'],
    [[...STORE, '--labels', ''], 'team worker: --labels must be a comma-separated list of names (letters, digits, . _ -), not ""'],
    [[...STORE, '--cwd', join(dir, 'missing')], `team: --cwd: ${join(dir, 'missing')} is not a folder`],
    [[...STORE, '--bogus'], "team worker: unknown option --bogus (`team worker --help` lists the options)"],
    [[...STORE, 'extra'], 'team worker: unexpected argument "extra"'],
  ];
  it.each(cases)('refuses %j with exit 2, writing nothing', async (args, message) => {
    const result = await runTeam(['worker', ...args], { cwd: dir });
    expect(result.stderr.trim()).toBe(message);
    expect(result.exitCode).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('names the store it cannot reach, without its password, and exits 1', async () => {
    const result = await runTeam(['worker', ...STORE], { cwd: dir });
    expect(result.stderr).toMatch(/^team: the store postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db cannot be reached \(/);
    expect(result.exitCode).toBe(1);
  });

  it('names TEAM_STORE when it is no PostgreSQL URL, never quoting it', async () => {
    const result = await runTeam(['worker'], { cwd: dir, env: { TEAM_STORE: 'pg://u:s3cretpw@db/x' } });
    expect(result.stderr.trim()).toBe('team worker: TEAM_STORE must be a PostgreSQL URL (postgres://user:password@host:port/database)');
    expect(result.exitCode).toBe(2);
  });

  it('refuses a --store-file that is a FIFO at once, naming it', async () => {
    const fifo = join(scratch, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const result = await runTeam(['worker', '--store-file', fifo], { cwd: dir });
    expect(result.stderr.trim()).toMatch(new RegExp(`^team worker: --store-file ${fifo}: .*not a regular file`));
    expect(result.exitCode).toBe(2);
  });

  it.each([
    ['--store-file', (url: string) => {
      const file = join(scratch, 'store-url');
      writeFileSync(file, `\n${url}\n`);
      return { args: ['--store-file', file], env: {} };
    }],
    ['TEAM_STORE', (url: string) => ({ args: [], env: { TEAM_STORE: url } })],
    ['team.store in the config', (url: string) => {
      const clone = mkdtempSync(join(scratch, 'clone-'));
      mkdirSync(join(clone, '.team'));
      writeFileSync(join(clone, '.team', 'config.json'), JSON.stringify({ team: { store: url } }));
      return { args: ['--cwd', clone], env: {} };
    }],
  ])('takes the store from %s', async (_from, setUp) => {
    const { args, env } = setUp('postgres://u:p@127.0.0.1:1/db');
    const result = await runTeam(['worker', ...args], { cwd: dir, env });
    expect(result.stderr).toMatch(/^team: the store postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db cannot be reached \(/);
    expect(result.exitCode).toBe(1);
  });
});

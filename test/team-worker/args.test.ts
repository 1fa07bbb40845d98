// `team worker` refuses bad arguments with exit 2, naming the argument, before it connects or writes.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTeam } from '../helpers/team.js';

const dir = mkdtempSync(join(tmpdir(), 'teamline-worker-args-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const STORE = ['--store', 'postgres://u:p@127.0.0.1:1/db'];

describe('team worker arguments', () => {
  const cases: Array<[string[], string]> = [
    [[], 'team worker: --store is required'],
    [['--store', 'http://example.org/db'], 'team worker: --store must be a PostgreSQL URL (postgres://user:password@host:port/database)'],
    [[...STORE, '--max', '0'], 'team worker: --max must be a whole number from 1 to 20, not "0"'],
    [[...STORE, '--lease-ttl', '1'], 'team worker: --lease-ttl must be a whole number from 2 to 3600, not "1"'],
    [[...STORE, '--labels', 'gpu,has space'], 'team worker: --labels must be a comma-separated list of names (letters, digits, . _ -), not "gpu,has space"'],
    [[...STORE, '--labels', ''], 'team worker: --labels must be a comma-separated list of names (letters, digits, . _ -), not ""'],
    [[...STORE, '--cwd', join(dir, 'missing')], `team: --cwd: ${join(dir, 'missing')} is not a folder`],
    [[...STORE, '--bogus'], "team worker: Unknown option '--bogus'"],
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
});

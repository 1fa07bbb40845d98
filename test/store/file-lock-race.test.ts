import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/team.js';

const CONTEND = join(ROOT, 'test/fixtures/lock/contend.mjs');
const LOCK_MODULE = join(ROOT, 'dist/src/store/files/lock.js');
const CONTENDERS = 6;
const ROUNDS = 12;
const dirs: string[] = [];

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []);

describe('runtime/lock (takeover of a stale lock by many at once)', () => {
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('lets at most one of many simultaneous takeovers of a dead holder\'s lock hold it, every time', { timeout: 240_000 }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const runDir = mkdtempSync(join(tmpdir(), 'teamline-lock-race-'));
      dirs.push(runDir);
      // A lock left by a holder that is gone (pid 0 is never a process of ours).
      writeFileSync(join(runDir, 'lock.json'), `${JSON.stringify({ pid: 2 ** 22 + round, pidStart: 1, since: 'then', command: 'team run' })}\n`);
      const start = join(runDir, 'start');
      const contenders = Array.from({ length: CONTENDERS }, () => execa('node', [CONTEND, LOCK_MODULE, runDir, start], { reject: false }));
      await new Promise((r) => setTimeout(r, 300));
      writeFileSync(start, '');
      const results = await Promise.all(contenders);
      for (const r of results) expect(r.exitCode, r.stderr).toBe(0);

      expect(lines(join(runDir, 'overlaps')), `round ${round}`).toEqual([]);
      expect(lines(join(runDir, 'holders')).length + lines(join(runDir, 'refused')).length, `round ${round}`).toBe(CONTENDERS);
      expect(lines(join(runDir, 'holders')).length, `round ${round}`).toBeGreaterThanOrEqual(1);
    }
  });
});

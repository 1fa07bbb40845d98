// The `team` command's code caches (src/sys/code-cache.ts): one per command, a run's its own, and
// none saved by a command refused at its arguments. Real node processes load a real bundle.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheKey, COMMAND_WORDS } from '../../src/sys/code-cache.js';
import { COMMANDS } from '../../src/commands/specs/index.js';
import { ROOT } from '../helpers/team.js';

const folders: string[] = [];
afterAll(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('code caches', () => {
  it('has one per command word of the specs, a run its own, help and the version one shared', () => {
    const words = COMMANDS.filter((spec) => spec.run !== undefined && spec.name !== 'run').map((spec) => spec.name);
    expect([...COMMAND_WORDS].sort()).toEqual([...new Set(words)].sort());
    for (const word of words) expect(cacheKey(word)).toBe(word);
    for (const run of ['3:executor', 'add input validation to the API', '--agent', '--cwd', 'stauts']) expect(cacheKey(run)).toBe('run');
    for (const other of [undefined, 'help', '--help', '-h', '--version']) expect(cacheKey(other)).toBe('other');
  });

  it("saves a command's cache as it ends, and none when it ended refused at its arguments (exit 2)", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'teamline-code-cache-'));
    folders.push(folder);
    writeFileSync(join(folder, 'tiny.cjs'), 'module.exports.answer = () => 42;\n');
    const load = (command: string, exitCode: number) => {
      const script = `const { loadBundle } = await import(${JSON.stringify(join(ROOT, 'dist/src/sys/code-cache.js'))});
const m = await loadBundle('tiny', () => { throw new Error('unbundled'); }, { command: ${JSON.stringify(command)}, usageSavesNone: true, folder: ${JSON.stringify(folder)} });
if (m.answer() !== 42) throw new Error('not the bundle');
process.exitCode = ${exitCode};`;
      return execa(process.execPath, ['--input-type=module', '-e', script], { reject: false });
    };
    const cached = () => (readdirSync(folder).includes('cache') ? readdirSync(join(folder, 'cache')) : []);
    expect((await load('land', 2)).exitCode).toBe(2);
    expect(cached()).toEqual([]);
    expect((await load('land', 0)).exitCode).toBe(0);
    expect((await load('2:executor', 1)).exitCode).toBe(1);
    expect(cached().map((name) => name.split('-v')[0]).sort()).toEqual(['tiny-land', 'tiny-run']);
  });
});

// The fence's command line and its reading of refused writes (workers/fence.ts), and one real
// fence built by bubblewrap around a shell: its writes land only in the folders bound writable.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { fencedCommand, probeFence, refusedPaths } from '../../workers/fence.js';
import { fencePlan } from '../../src/isolation/fence.js';
import { codex } from '../../workers/adapters/codex.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('the fence\'s command line', () => {
  it('binds each writable path once, parents before children, and none a writable parent covers', () => {
    const command = fencedCommand({ file: 'claude', args: ['-p', 'x'], env: { A: '1' } }, { writable: ['/w/attempt/tmp', '/w', '/home/u/.claude', '/w', '/home/u/.claude.json', '/wx'], tmp: '/w/attempt/tmp' }, { bwrap: '/usr/bin/bwrap', env: '/usr/bin/env' });
    // bwrap ignores the stop's signals (it would die of them before its agent); the agent has them back.
    expect(command.file).toBe('/usr/bin/env');
    expect(command.args).toEqual(['--ignore-signal=INT,TERM', '/usr/bin/bwrap', '--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--bind', '/proc', '/proc', '--bind', '/w', '/w', '--bind', '/wx', '/wx', '--bind', '/home/u/.claude', '/home/u/.claude', '--bind', '/home/u/.claude.json', '/home/u/.claude.json', '--', '/usr/bin/env', '--default-signal=INT,TERM', 'claude', '-p', 'x']);
    expect(command.env).toEqual({ A: '1', TMPDIR: '/w/attempt/tmp', TMP: '/w/attempt/tmp', TEMP: '/w/attempt/tmp' });
  });
});

describe('the writes the fence refused, read from an agent\'s output', () => {
  it('finds the paths in the words of git, sh, coreutils, node, python and inside a CLI\'s JSON', () => {
    const output = [
      "fatal: Unable to create '/p/.git/index.lock': Read-only file system",
      'sh: 1: cannot create /p/README.md: Read-only file system',
      "rm: cannot remove '/p/untracked.txt': Read-only file system",
      "remote: error: cannot lock ref 'refs/heads/side': Unable to create '/p/.git/./refs/heads/side.lock': Read-only file system        ",
      "Error: EROFS: read-only file system, open '/home/u/.bashrc'",
      "OSError: [Errno 30] Read-only file system: '/etc/x'",
      '{"type":"tool_result","content":"touch: cannot touch \\"/p/a b.txt\\": Read-only file system"}',
      'wrote /p/ok.txt',
      "error: could not write '/p/other': Permission denied",
    ].join('\n');
    expect(refusedPaths(output)).toEqual(['/p/.git/index.lock', '/p/README.md', '/p/untracked.txt', '/p/.git/refs/heads/side.lock', '/home/u/.bashrc', '/etc/x', '/p/a b.txt']);
  });

  it('keeps at most twenty paths, each at most 300 characters', () => {
    const output = Array.from({ length: 30 }, (_, i) => `sh: 1: cannot create /p/${i}-${'x'.repeat(400)}: Read-only file system`).join('\n');
    const paths = refusedPaths(output);
    expect(paths).toHaveLength(20);
    expect(paths.every((path) => path.length === 301 && path.endsWith('…'))).toBe(true);
  });

  it('finds nothing in output without a refusal', () => {
    expect(refusedPaths('all good\n/p/file written\n')).toEqual([]);
  });
});

describe('a real fence (bubblewrap)', () => {
  it('lets a shell write in its bound folders and its TMPDIR, and refuses every other write with EROFS', async () => {
    const probe = probeFence();
    expect(probe, 'bubblewrap must be installed and able to build a fence here (.ci/run installs it)').toMatchObject({ ok: true });
    const root = mkdtempSync(join(tmpdir(), 'teamline-fence-unit-'));
    dirs.push(root);
    const work = join(root, 'work');
    const tmp = join(root, 'tmp');
    for (const dir of [work, tmp]) mkdirSync(dir);
    writeFileSync(join(root, 'user.txt'), 'mine\n');
    const script = 'echo w > "$1/made.txt"; echo t > "$TMPDIR/t.txt"; echo x >> "$2/user.txt"; echo y > "$2/new.txt"; true';
    const command = fencedCommand({ file: 'sh', args: ['-c', script, 'sh', work, root] }, { writable: [work, tmp], tmp }, probe as { bwrap: string; env: string });
    const result = await execa(command.file, command.args, { env: command.env, reject: false });
    expect(result.exitCode).toBe(0);
    expect(readFileSync(join(work, 'made.txt'), 'utf8')).toBe('w\n');
    expect(readFileSync(join(tmp, 't.txt'), 'utf8')).toBe('t\n');
    expect(readFileSync(join(root, 'user.txt'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(root, 'new.txt'))).toBe(false);
    expect(refusedPaths(result.stderr)).toEqual([join(root, 'user.txt'), join(root, 'new.txt')]);
  });

  it("binds an attempt's private folder over a CLI's fixed place: the agent writes there, the user's place stays as it was", async () => {
    const probe = probeFence();
    expect(probe).toMatchObject({ ok: true });
    const root = mkdtempSync(join(tmpdir(), 'teamline-fence-mask-'));
    dirs.push(root);
    const [work, tmp, fixed, own] = ['work', 'tmp', 'fixed', 'own'].map((name) => join(root, name)) as [string, string, string, string];
    for (const dir of [work, tmp, fixed, own]) mkdirSync(dir);
    writeFileSync(join(fixed, 'daemon.sock'), 'the user\'s\n');
    const script = 'ls -A "$1"; mkdir -p "$1/sandbox" && echo made > "$1/sandbox/x"';
    const command = fencedCommand({ file: 'sh', args: ['-c', script, 'sh', fixed] }, { writable: [work, tmp], tmp, masks: [{ source: own, target: fixed }] }, probe as { bwrap: string; env: string });
    const result = await execa(command.file, command.args, { env: command.env, reject: false });
    expect(result.exitCode, result.stderr).toBe(0);
    // Inside, the place is the attempt's own, empty folder: nothing of the user's is seen there.
    expect(result.stdout.trim()).toBe('');
    expect(readFileSync(join(own, 'sandbox', 'x'), 'utf8')).toBe('made\n');
    expect(existsSync(join(fixed, 'sandbox'))).toBe(false);
  });
});

describe("codex's fixed place in the fence", () => {
  it('plans /tmp/codex-daemon-<uid> as a private folder of the attempt, made first where it is missing (codex cannot build its own sandbox in the fence without it)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'teamline-fence-codex-'));
    dirs.push(root);
    const [work, attempt] = ['work', 'attempt'].map((name) => join(root, name)) as [string, string];
    for (const dir of [work, attempt]) mkdirSync(dir);
    const plan = await fencePlan({ workDir: work, attemptDir: attempt, adapter: codex, env: { HOME: join(root, 'home') } });
    const target = `/tmp/codex-daemon-${process.getuid!()}`;
    expect(plan.masks).toEqual([{ source: join(attempt, 'private', '0'), target }]);
    expect(existsSync(target)).toBe(true);
    expect(existsSync(join(attempt, 'private', '0'))).toBe(true);
  });
});

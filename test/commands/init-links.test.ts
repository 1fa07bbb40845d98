// `team init` in a project a person or an agent has booby-trapped: links that lead out of the
// project, a link to nothing, FIFOs where its files go, a folder it cannot write, a read-only home.
// It never writes outside the project (or the home folder with --global), never hangs, and says
// what is wrong in one line with exit 2. Every command runs with a timeout: a hang fails the test.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { binFolder, CLAUDE, removeFolders, tempFolder } from '../helpers/init.js';
import { CLI } from '../helpers/team.js';

afterEach(removeFolders);

// The uid an unwritable folder is tried as when the tests run as root (root writes anywhere).
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const CAN_UNSHARE = asRoot && (await execa('unshare', ['--version'], { reject: false })).exitCode === 0;

// `team init <args>` in `cwd` with HOME `home`, as `uid` when given, ended after 20 s.
async function init(cwd: string, args: string[], options: { home?: string; uid?: number; wrap?: string[] } = {}) {
  const command = [...(options.wrap ?? []), ...(options.uid === undefined ? [] : ['setpriv', `--reuid=${options.uid}`, `--regid=${options.uid}`, '--clear-groups']), process.execPath, CLI, 'init', ...args];
  const result = await execa(command[0]!, command.slice(1), { cwd, env: { PATH: '/usr/bin:/bin', HOME: options.home ?? cwd }, extendEnv: false, reject: false, stdin: 'ignore', stripFinalNewline: false, timeout: 20_000 });
  expect(result.timedOut, `team init ${args.join(' ')} hung`).toBe(false);
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

// A project folder and a folder outside it (with one file), as the same user sees them.
function makeProjectAndOutside(): { dir: string; outside: string } {
  const dir = tempFolder('teamline-init-links-');
  const outside = tempFolder('teamline-outside-');
  writeFileSync(join(outside, 'keep.md'), 'not teamline\n');
  return { dir, outside };
}

const listing = (dir: string) => readdirSync(dir).sort();

// A `team` for --bin, in a folder any user can read (the files then name it by its absolute path).
function teamBin(): string {
  const dir = binFolder(['team']);
  chmodSync(dir, 0o755);
  return join(dir, 'team');
}

describe('team init (links, FIFOs, unwritable folders)', () => {
  it.each([['.claude'], ['.claude/commands']])('refuses to write through %s when it links out of the project, and writes nothing there', async (link) => {
    const { dir, outside } = makeProjectAndOutside();
    if (link !== '.claude') mkdirSync(join(dir, '.claude'));
    symlinkSync(outside, join(dir, link));
    const result = await init(dir, ['--claude', '--bin', teamBin()]);
    expect(result.stderr).toBe(`team: ${join(dir, link)} leads outside the project through a symbolic link; teamline writes only inside the project (remove the link)\n`);
    expect(result.exitCode).toBe(2);
    expect(listing(outside)).toEqual(['keep.md']);
  });

  it('with --force, refuses a command file that links to a file outside, and leaves that file as it was', async () => {
    const { dir, outside } = makeProjectAndOutside();
    mkdirSync(join(dir, '.claude', 'commands'), { recursive: true });
    symlinkSync(join(outside, 'keep.md'), join(dir, '.claude', 'commands', 'team.md'));
    const result = await init(dir, ['--claude', '--force', '--bin', teamBin()]);
    expect(result.stderr).toBe(`team: ${join(dir, '.claude', 'commands', 'team.md')} leads outside the project through a symbolic link; teamline writes only inside the project (remove the link)\n`);
    expect(result.exitCode).toBe(2);
    expect(readFileSync(join(outside, 'keep.md'), 'utf8')).toBe('not teamline\n');
  });

  it('never makes what a link to nothing points to', async () => {
    const { dir, outside } = makeProjectAndOutside();
    mkdirSync(join(dir, '.claude', 'commands'), { recursive: true });
    symlinkSync(join(outside, 'made.md'), join(dir, '.claude', 'commands', 'ralph.md'));
    const result = await init(dir, ['--claude', '--bin', teamBin()]);
    expect(result.stderr).toBe(`team: ${join(dir, '.claude', 'commands', 'ralph.md')} is a symbolic link to nothing; teamline does not make what it points to (remove the link)\n`);
    expect(result.exitCode).toBe(2);
    expect(listing(outside)).toEqual(['keep.md']);
  });

  it('refuses an init manifest that links to a file outside, and leaves that file as it was', async () => {
    const { dir, outside } = makeProjectAndOutside();
    mkdirSync(join(dir, '.team'));
    symlinkSync(join(outside, 'keep.md'), join(dir, '.team', 'init-manifest.json'));
    const result = await init(dir, ['--claude', '--bin', teamBin()]);
    expect(result.stderr).toBe(`team: ${join(dir, '.team', 'init-manifest.json')} leads outside the project through a symbolic link; teamline writes only inside the project (remove the link)\n`);
    expect(result.exitCode).toBe(2);
    expect(readFileSync(join(outside, 'keep.md'), 'utf8')).toBe('not teamline\n');
    expect(existsSync(join(dir, '.claude'))).toBe(false);
  });

  it('with --git-drivers, refuses a .gitattributes that links to a file outside, and leaves that file as it was', async () => {
    const { dir, outside } = makeProjectAndOutside();
    execFileSync('git', ['init', '--quiet'], { cwd: dir });
    symlinkSync(join(outside, 'keep.md'), join(dir, '.gitattributes'));
    const result = await init(dir, ['--git-drivers']);
    expect(result.stderr).toBe(`team: --git-drivers: ${join(dir, '.gitattributes')}: a symbolic link out of ${dir} (never followed); the merge driver's line cannot be added to it\n`);
    expect(result.exitCode).toBe(2);
    expect(readFileSync(join(outside, 'keep.md'), 'utf8')).toBe('not teamline\n');
  });

  it('follows a link that stays in the project and writes in the folder it leads to', async () => {
    const { dir } = makeProjectAndOutside();
    mkdirSync(join(dir, 'config', 'claude'), { recursive: true });
    symlinkSync(join(dir, 'config', 'claude'), join(dir, '.claude'));
    const result = await init(dir, ['--claude', '--bin', teamBin()]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(listing(join(dir, 'config', 'claude', 'commands'))).toEqual(CLAUDE.map((p) => p.split('/').at(-1)).sort());
  });

  it('keeps a FIFO at a command file, replaces one at the manifest, and never waits on either (also with --print)', async () => {
    const { dir } = makeProjectAndOutside();
    mkdirSync(join(dir, '.claude', 'commands'), { recursive: true });
    mkdirSync(join(dir, '.team'));
    execFileSync('mkfifo', [join(dir, '.claude', 'commands', 'team.md'), join(dir, '.team', 'init-manifest.json')]);
    const printed = await init(dir, ['--claude', '--print', '--bin', teamBin()]);
    expect(printed.exitCode, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('── .claude/commands/team.md (claude): would be kept\n');
    const result = await init(dir, ['--claude', '--bin', teamBin()]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('kept      .claude/commands/team.md (changed since team init wrote it, or not written by it; --force overwrites it)\n');
    expect(statSync(join(dir, '.claude', 'commands', 'team.md')).isFIFO()).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, '.team', 'init-manifest.json'), 'utf8')).files).toHaveProperty(['.claude/commands/ralph.md']);
  });

  it('refuses a FIFO at .gitattributes with --git-drivers, at once', async () => {
    const { dir } = makeProjectAndOutside();
    execFileSync('git', ['init', '--quiet'], { cwd: dir });
    execFileSync('mkfifo', [join(dir, '.gitattributes')]);
    const result = await init(dir, ['--git-drivers']);
    expect(result.stderr).toBe(`team: --git-drivers: ${join(dir, '.gitattributes')}: not a regular file (a FIFO); the merge driver's line cannot be added to it\n`);
    expect(result.exitCode).toBe(2);
  });

  it.skipIf(!asRoot)('names the file it cannot write in an unwritable .claude, with exit 2 and no stack trace', async () => {
    const { dir } = makeProjectAndOutside();
    mkdirSync(join(dir, '.claude'));
    execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, dir]);
    execFileSync('chown', ['root:root', join(dir, '.claude')]);
    chmodSync(join(dir, '.claude'), 0o755);
    const result = await init(dir, ['--claude', '--bin', teamBin()], { uid: NOBODY });
    expect(result.stderr).toBe(`team: cannot write ${join(dir, '.claude', 'commands', 'team.md')} (EACCES: permission denied)\n`);
    expect(result.exitCode).toBe(2);
  });

  it.skipIf(!CAN_UNSHARE)('names the file it cannot write under a read-only home with --global, with exit 2 and no stack trace', async () => {
    const home = tempFolder('teamline-home-');
    const script = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"';
    const result = await init(home, ['--claude', '--global', '--bin', teamBin()], { home, wrap: ['unshare', '--mount', 'sh', '-c', script, 'sh', home] });
    expect(result.stderr).toBe(`team: cannot write ${join(home, '.claude', 'commands', 'team.md')} (EROFS: read-only file system)\n`);
    expect(result.exitCode).toBe(2);
    expect(listing(home)).toEqual([]);
  });
});

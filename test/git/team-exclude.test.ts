// `.team/` is in .git/info/exclude before teamline writes the first file under it, by `team init`
// as by a run, said once; a read-only .git (as in Codex's sandbox) gets a clear line, not a crash.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/team.js';

// The uid a read-only .git is tried as when the tests run as root (root writes anywhere).
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const dirs: string[] = [];
// `team` on PATH, as an installed teamline is (init says so when it is not).
const bin = mkdtempSync(join(tmpdir(), 'teamline-exclude-bin-'));
chmodSync(bin, 0o755);
symlinkSync(CLI, join(bin, 'team'));
afterAll(() => rmSync(bin, { recursive: true, force: true }));
afterEach(() => {
  for (const dir of dirs.splice(0)) {
    execFileSync('chmod', ['-R', 'u+w', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

// A git repository with one commit and nothing ignored.
function makeRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-exclude-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'README.md'), '# a project\n');
  execFileSync('git', ['init', '--quiet', '--initial-branch', 'main'], { cwd: dir });
  execFileSync('git', ['add', 'README.md'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=A', '-c', 'user.email=a@example.com', 'commit', '--quiet', '-m', 'base'], { cwd: dir });
  return dir;
}

// Makes the repository's .git read-only for the user `team` runs as; returns that uid (root: nobody).
function makeGitReadOnly(dir: string): number | undefined {
  if (asRoot) execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, dir]);
  execFileSync('chmod', ['-R', 'a-w', join(dir, '.git')]);
  return asRoot ? NOBODY : undefined;
}

async function team(dir: string, args: string[], uid?: number) {
  const argv = uid === undefined ? [process.execPath, CLI, ...args] : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', process.execPath, CLI, ...args];
  const result = await execa(argv[0]!, argv.slice(1), { cwd: dir, env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir }, extendEnv: false, reject: false, stdin: 'ignore' });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

const staged = (dir: string) => {
  execFileSync('git', ['add', '-A'], { cwd: dir });
  return execFileSync('git', ['diff', '--cached', '--name-only'], { cwd: dir, encoding: 'utf8' }).split('\n').filter(Boolean);
};

describe('team-exclude', () => {
  it('team init excludes .team/ before it writes its manifest, says so once, and git add -A stages nothing of it', async () => {
    const dir = makeRepo();
    const first = await team(dir, ['init', '--claude']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stderr).toBe(`team: added .team/ to ${join(dir, '.git', 'info', 'exclude')}, so that git leaves teamline's run files alone`);
    expect(staged(dir)).toEqual(['.claude/commands/cancel.md', '.claude/commands/ralph.md', '.claude/commands/team-status.md', '.claude/commands/team.md']);
    const again = await team(dir, ['init', '--claude']);
    expect(again.stderr).toBe('');
    expect(readFileSync(join(dir, '.git', 'info', 'exclude'), 'utf8').split('\n').filter((line) => line === '.team/')).toHaveLength(1);
  });

  it('a run excludes .team/ before it writes the run folder, from a subfolder of the repository too', async () => {
    const dir = makeRepo();
    execFileSync('mkdir', [join(dir, 'app')]);
    const result = await team(join(dir, 'app'), ['state', 'start-run', '--profile', 'p', '--stage', 'team-plan']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toBe(`team: added .team/ to ${join(dir, '.git', 'info', 'exclude')}, so that git leaves teamline's run files alone`);
    expect(staged(dir)).toEqual([]);
  });

  it('leaves the exclude file alone when it already keeps .team/ out', async () => {
    const dir = makeRepo();
    writeFileSync(join(dir, '.git', 'info', 'exclude'), '*.log\n.team/\n');
    const result = await team(dir, ['init', '--claude']);
    expect(result.stderr).toBe('');
    expect(readFileSync(join(dir, '.git', 'info', 'exclude'), 'utf8')).toBe('*.log\n.team/\n');
  });

  it('with a read-only .git, init and a two-worker run say what to do and go on in the shared checkout', async () => {
    const dir = makeRepo();
    const uid = makeGitReadOnly(dir);
    const exclude = join(dir, '.git', 'info', 'exclude');
    const warning = `team: cannot add .team/ to ${exclude} (EACCES); add a line .team/ to .gitignore, or git add -A will take teamline's run files`;
    const init = await team(dir, ['init', '--claude'], uid);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.stderr).toBe(warning);
    const run = await team(dir, ['2:executor', 'add a greeting', '--agent', 'sim'], uid);
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).not.toContain('internal error');
    expect(`${run.stdout}${run.stderr}`).toContain(`isolation: none — workers share the project folder (${join(dir, '.git')} cannot be written (EACCES))`);
  }, 90_000);

  it('asked for worktrees, a read-only .git is bad input named in one line', async () => {
    const dir = makeRepo();
    writeFileSync(join(dir, 'team.json'), JSON.stringify({ team: { isolation: 'worktree' } }));
    const uid = makeGitReadOnly(dir);
    if (asRoot) chownSync(join(dir, 'team.json'), NOBODY, NOBODY);
    const run = await team(dir, ['2:executor', 'add a greeting', '--agent', 'sim', '--config', 'team.json'], uid);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`team: team.isolation: "worktree" needs a git repository that can be written, and ${join(dir, '.git')} cannot be written (EACCES)`);
  });
});

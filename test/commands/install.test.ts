// `npm pack` then `npm install -g` of the tarball into a fresh prefix: the installed `team` runs from
// that prefix's bin alone (no node_modules/.bin, no shim), outside the clone. One pack and one
// install serve every case (test/helpers/installed-team.ts: no network but 127.0.0.1).
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installTeam, systemPath } from '../helpers/installed-team.js';
import { ROOT } from '../helpers/team.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
// The uid `team` runs as for the read-only case when the tests run as root (root writes anywhere).
const NOBODY = 65534;

let scratch: string;
let prefix: string;
let files: string[];

// The PATH of a user who installed teamline: the prefix's bin, then the system's (nothing of the clone).
function userPath(): string {
  return [join(prefix, 'bin'), ...systemPath()].join(delimiter);
}

function team(args: string[], cwd: string, uid?: number) {
  const env = { PATH: userPath(), HOME: cwd, GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com' };
  const [file, argv] = uid === undefined ? ['team', args] : ['setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', 'team', ...args]];
  return execa(file, argv, { cwd, env, extendEnv: false, reject: false, stdin: 'ignore' });
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'teamline-install-'));
  prefix = join(scratch, 'prefix');
  files = (await installTeam(scratch, prefix)).files;
}, 240_000);

afterAll(async () => {
  if (scratch) {
    execFileSync('chmod', ['-R', 'u+w', scratch]);
    rmSync(scratch, { recursive: true, force: true });
  }
});

describe('install', () => {
  it('packs the built CLI, the sim agent and the prompts, and leaves the bench, build scripts, source maps and code caches out', () => {
    for (const path of ['dist/cli/team.cjs', 'dist/src/cli.js', 'dist/cli/commands.cjs', 'dist/cli/status.cjs', 'dist/cli/sim.cjs', 'dist/workers/sim/sim-agent.js', 'dist/machines/pipeline.js', 'config/prompts/team-plan.md', 'package.json']) expect(files).toContain(path);
    expect(files.filter((path) => /^dist\/(bench|scripts|test)\/|\.map$|^dist\/cli\/cache\//.test(path))).toEqual([]);
  });

  it('builds on pack and on npm ci: prepare runs the build', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.prepare).toBe('npm run build');
  });

  it('puts team on the PATH from the prefix bin alone, and it prints the version', async () => {
    const which = await execa('sh', ['-c', 'command -v team'], { env: { PATH: userPath() }, extendEnv: false });
    expect(which.stdout).toBe(join(prefix, 'bin', 'team'));
    const result = await team(['--version'], scratch);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(VERSION);
  });

  it('runs a sim team in a fresh git repository outside the clone, with the installed sim agent and prompts', async () => {
    const project = mkdtempSync(join(tmpdir(), 'teamline-installed-run-'));
    try {
      writeFileSync(join(project, 'README.md'), '# a project\n');
      execFileSync('git', ['init', '--quiet', '--initial-branch', 'main'], { cwd: project });
      execFileSync('git', ['-c', 'user.name=A', '-c', 'user.email=a@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'base'], { cwd: project });
      const result = await team(['2:executor', 'add a greeting', '--agent', 'sim'], project);
      expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(`${result.stdout}${result.stderr}`).toContain('isolation: worktree');
      expect(readdirSync(join(project, '.team', 'runs')).filter((name) => name !== 'current')).toHaveLength(1);
      expect(execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--', '.team'], { cwd: project, encoding: 'utf8' })).toBe('');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }, 120_000);

  it('starts from a read-only install folder, without a code cache and without a word on stderr', async () => {
    const cli = join(prefix, 'lib', 'node_modules', 'teamline', 'dist', 'cli');
    rmSync(join(cli, 'cache'), { recursive: true, force: true });
    execFileSync('chmod', ['-R', 'a-w', join(prefix, 'lib')]);
    const asRoot = process.getuid?.() === 0;
    const cwd = mkdtempSync(join(tmpdir(), 'teamline-readonly-'));
    if (asRoot) {
      chownSync(cwd, NOBODY, NOBODY);
      chmodSync(scratch, 0o755);
    }
    try {
      for (let run = 0; run < 2; run++) {
        const result = await team(['--version'], cwd, asRoot ? NOBODY : undefined);
        expect(result.stderr).toBe('');
        expect(result.stdout).toBe(VERSION);
      }
      expect(existsSync(join(cli, 'cache'))).toBe(false);
    } finally {
      chmodSync(cwd, 0o700);
      rmSync(cwd, { recursive: true, force: true });
      execFileSync('chmod', ['-R', 'u+w', join(prefix, 'lib')]);
    }
  });
});

// The git module on a real repository: merges come back as data, and a conflict leaves both sides as they were.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mergeBranch, mergeInProgress } from '../../src/git/merge.js';
import { dirtyPaths, isTeamPath, probeRepo } from '../../src/git/repo.js';
import { GIT_ENV } from '../helpers/git-project.js';

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

let dir: string;
const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();

// A repository on main with `file` = 'base', and a branch `other` that sets it to `theirs`.
function makeRepo(theirs: string): void {
  dir = mkdtempSync(join(tmpdir(), 'teamline-git-'));
  made.push(dir);
  git('init', '--quiet', '--initial-branch', 'main');
  writeFileSync(join(dir, 'file'), 'base\n');
  git('add', 'file');
  git('commit', '--quiet', '-m', 'base');
  git('switch', '--quiet', '-c', 'other');
  writeFileSync(join(dir, 'file'), theirs);
  git('commit', '--quiet', '-am', 'theirs');
  git('switch', '--quiet', 'main');
}

describe('git merge', () => {
  beforeEach(() => makeRepo('theirs\n'));

  it('merges a branch with a merge commit, naming the files the branch changed', async () => {
    const outcome = await mergeBranch(dir, 'other', 'merge other');
    expect(outcome).toEqual({ kind: 'merged', commit: git('rev-parse', 'HEAD'), changed: ['file'] });
    expect(git('log', '-1', '--format=%s %P').split(' ')).toHaveLength(4);
  });

  it('aborts a conflict and names its files and both sides, leaving the branch as it was', async () => {
    writeFileSync(join(dir, 'file'), 'ours\n');
    git('commit', '--quiet', '-am', 'ours');
    const before = git('rev-parse', 'HEAD');
    const outcome = await mergeBranch(dir, 'other', 'merge other');
    expect(outcome).toEqual({ kind: 'conflict', files: ['file'], ours: before, theirs: git('rev-parse', 'other') });
    expect(git('rev-parse', 'HEAD')).toBe(before);
    expect(await mergeInProgress(dir)).toBe(false);
    expect(await dirtyPaths(dir)).toEqual([]);
  });

  it('refuses a branch that commits teamline\'s files, merging nothing', async () => {
    git('switch', '--quiet', 'other');
    writeFileSync(join(dir, 'leak'), 'x');
    mkdirSync(join(dir, '.team'));
    writeFileSync(join(dir, '.team', 'state.json'), '{}');
    git('add', '--force', '.team/state.json');
    git('commit', '--quiet', '-m', 'leak');
    git('switch', '--quiet', 'main');
    const before = git('rev-parse', 'HEAD');
    const outcome = await mergeBranch(dir, 'other', 'merge other');
    expect(outcome.kind).toBe('runtime-files');
    expect(outcome.kind === 'runtime-files' && outcome.files).toEqual(['.team/state.json']);
    expect(git('rev-parse', 'HEAD')).toBe(before);
  });
});

describe('git repo', () => {
  it('tells teamline\'s paths at any depth from the project\'s', () => {
    expect(['.team/x', 'app/.team/runs/a', '.team'].map(isTeamPath)).toEqual([true, true, true]);
    expect(['team/x', '.teams/x', 'src/.teamrc'].map(isTeamPath)).toEqual([false, false, false]);
  });

  it('probes a folder outside git, and one in a repository with no commit, as not usable', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'teamline-git-'));
    made.push(bare);
    expect(await probeRepo(bare)).toEqual({ kind: 'none', reason: `${bare} is not in a git repository` });
    execFileSync('git', ['init', '--quiet'], { cwd: bare });
    expect((await probeRepo(bare)).kind).toBe('none');
  });
});

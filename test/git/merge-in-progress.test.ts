// mergeInProgress reads a worktree's own MERGE_HEAD without git, and asks git elsewhere: a real
// repository, a linked worktree with a conflicted merge, and a folder below a worktree's top.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeInProgress } from '../../src/git/merge.js';
import { commitAsRepo } from '../helpers/git-project.js';

const dir = mkdtempSync(join(tmpdir(), 'teamline-merge-head-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mergeInProgress', () => {
  it('is true in a linked worktree and a checkout while a merge is unconcluded, below a top too, and false once it is aborted', async () => {
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'sub'), { recursive: true });
    writeFileSync(join(repo, 'f.txt'), 'base\n');
    writeFileSync(join(repo, 'sub', 'g.txt'), 'g\n');
    const git = commitAsRepo(repo);
    git('branch', 'other');
    writeFileSync(join(repo, 'f.txt'), 'main side\n');
    git('commit', '--quiet', '-am', 'main side');
    const linked = join(dir, 'linked');
    git('worktree', 'add', '--quiet', linked, 'other');
    writeFileSync(join(linked, 'f.txt'), 'other side\n');
    const inLinked = (...args: string[]) => git('-C', linked, ...args);
    inLinked('commit', '--quiet', '-am', 'other side');
    expect(await mergeInProgress(linked)).toBe(false);
    expect(() => inLinked('merge', '--quiet', 'main')).toThrow();
    expect(await mergeInProgress(linked)).toBe(true);
    expect(await mergeInProgress(repo)).toBe(false);
    inLinked('merge', '--abort');
    expect(await mergeInProgress(linked)).toBe(false);
    expect(() => git('merge', '--quiet', 'other')).toThrow();
    expect(await mergeInProgress(repo)).toBe(true);
    expect(await mergeInProgress(join(repo, 'sub'))).toBe(true);
    git('merge', '--abort');
    expect(await mergeInProgress(repo)).toBe(false);
    expect(await mergeInProgress(join(repo, 'sub'))).toBe(false);
  });
});

// Two workers change the same line: the second merge conflicts, is aborted with both sides kept,
// and a fix task resolves it in a worktree where the merge waits with its conflict markers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, type RunRead } from '../helpers/sim-project.js';
import { makeGitProject, showFile, type GitProject } from '../helpers/git-project.js';
import type { TeamResult } from '../helpers/team.js';

afterAll(removeProjects);

const FILE = 'shared.txt';
const RESOLVED = 'line one\nTWO by t1 and t2\nline three\n';

const SCENARIO = {
  plan: { tasks: [{ id: 't1', acceptance: ['line 2'] }, { id: 't2', acceptance: ['line 2 too'] }] },
  rules: [
    { match: { task: 't1' }, do: { files: [], edits: [{ path: FILE, line: 2, text: 'TWO by t1' }] } },
    { match: { task: 't2' }, do: { files: [], edits: [{ path: FILE, line: 2, text: 'TWO by t2' }] } },
    { match: { task: 'fix-*' }, do: { files: [{ path: FILE, content: RESOLVED }] } },
  ],
};

describe('worktree isolation: a merge conflict', () => {
  let project: GitProject;
  let result: TeamResult;
  let run: RunRead;
  let integration: string;

  beforeAll(async () => {
    project = makeGitProject(SCENARIO, {}, { [FILE]: 'line one\nline two\nline three\n' });
    project.write('notes.txt', 'mine\n');
    project.git('add', 'notes.txt');
    result = await project.run('2:executor', 'both change line two', '--agent', 'sim');
    run = project.readRun();
    integration = `team/${run.runId}`;
  });

  it('records the conflicting task with its files, and does not retry it', () => {
    const failed = eventsOf(run.events, 'merge_failed');
    expect(failed.map((e) => [e.reason, e.files])).toEqual([['conflict', [FILE]]]);
    const loser = failed[0]!.task_id;
    expect(eventsOf(run.events, 'task_started').filter((e) => e.task_id === loser)).toHaveLength(1);
    const finished = eventsOf(run.events, 'task_finished').find((e) => e.task_id === loser)!;
    expect(finished.status).toBe('failed');
    expect(finished.evidence).toContain(`merge conflict: ${integration}--${loser} (theirs`);
  });

  it('keeps both sides: the integration branch holds one, the task branch the other', () => {
    const loser = eventsOf(run.events, 'merge_failed')[0]!.task_id;
    expect(project.git('log', '--format=%s', `${integration}--${loser}`)).toContain(`${loser} attempt 1 (completed)`);
    expect(showFile(project, `${integration}--${loser}`, FILE)).toContain(`TWO by ${loser}`);
  });

  it('gives the fix task the merge in conflicted state, naming the files and both sides in its prompt', () => {
    const loser = eventsOf(run.events, 'merge_failed')[0]!.task_id;
    const fix = eventsOf(run.events, 'worktree_ready').find((e) => e.merging !== undefined)!;
    expect(fix.task_id).toBe(`fix-1-task-${loser}`);
    expect([fix.merging, fix.conflicts]).toEqual([`${integration}--${loser}`, [FILE]]);
    const prompt = readFileSync(join(run.paths.attemptsDir, fix.task_id, 'a1', 'prompt.md'), 'utf8');
    expect(prompt).toContain(`${integration}--${loser} (theirs`);
    expect(prompt).toContain(`${integration} (ours`);
    expect(prompt).toContain(`both change ${FILE}`);
  });

  it('says at the start that uncommitted changes stay out of the worktrees, and leaves them alone', () => {
    expect(result.stderr).toContain('isolation: your uncommitted changes (notes.txt) are not in the workers\' worktrees: they start from the last commit');
    expect(project.git('status', '--porcelain')).toContain('A  notes.txt');
  });

  it('merges the resolution, and verify passes on the integration branch', () => {
    expect(result.exitCode, result.stderr).toBe(0);
    expect(eventsOf(run.events, 'verify_result').map((e) => e.verdict)).toEqual(['pass', 'pass']);
    expect(showFile(project, integration, FILE)).toBe(RESOLVED.trimEnd());
    for (const task of ['t1', 't2']) expect(project.git('branch', '--merged', integration, '--list', `${integration}--${task}`)).not.toBe('');
  });
});

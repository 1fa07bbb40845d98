// The code of a run on the PostgreSQL store moves through git (team.remote): the writer pushes
// `team/<run>`, each team worker works in its own clone on the task's branch and pushes it, the
// writer merges it and pushes `team/<run>` again, from which the dependent tasks start.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GIT_ENV } from '../helpers/git-project.js';
import { clusterAndProject } from './pg-fixture.js';
import { closeScaleOuts, openScaleOut } from './scale-out-fixture.js';

const env = clusterAndProject('teamline-scale-out-git-');
const worlds = closeScaleOuts();
const GATE = 'test ! -e broken';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();

// A bare repository with one commit (README.md and `files`), and a clone of it at each of `names` (under `root`).
function makeRepos(root: string, names: string[], files: Record<string, string> = {}): { origin: string } {
  const origin = join(root, 'origin.git');
  git(root, 'init', '--quiet', '--bare', '--initial-branch', 'main', origin);
  const seed = join(root, 'seed');
  git(root, 'clone', '--quiet', origin, seed);
  for (const [path, text] of Object.entries({ 'README.md': '# greetings\n', ...files })) writeFileSync(join(seed, path), text);
  git(seed, 'add', '--all');
  git(seed, 'commit', '--quiet', '-m', 'base');
  git(seed, 'push', '--quiet', 'origin', 'main');
  for (const name of names) git(root, 'clone', '--quiet', origin, join(root, name));
  return { origin };
}

// A run on the store whose code moves through origin: team workers at `machines` (two attempts at
// once each) take its attempts while the writer runs `task` with the sim on 2 workers, `config`
// added to the writer's config; the run must complete.
async function runThroughGit(scenario: object, task: string, machines: string[], config: Record<string, unknown> = {}) {
  const world = worlds.add(await openScaleOut(env.cluster.url, env.project, scenario, { remote: 'origin' }));
  const configFile = join(world.writer, '.team', 'config.json');
  writeFileSync(configFile, JSON.stringify({ ...JSON.parse(readFileSync(configFile, 'utf8')), ...config }));
  for (const machine of machines) world.worker(machine, ['--max', '2']);
  const run = await world.team(['2:executor', task, '--agent', 'sim'], world.writer, GIT_ENV);
  expect(run.exitCode, String(run.stderr)).toBe(0);
  const runId = (await world.runId())!;
  return { world, runId, integration: `team/${runId}`, events: await world.events(runId) };
}

describe('a run on the PostgreSQL store, its code through git', () => {
  it('merges each worker\'s pushed task branch into team/<run>, a dependent task starts from its blocker\'s merged work, and team land --store brings the run into another clone', async () => {
    const { origin } = makeRepos(env.project, ['writer', 'machine-a', 'machine-b']);
    const scenario = {
      name: 'through-git',
      plan: { tasks: [{ id: 't1', title: 'First', acceptance: ['t1'] }, { id: 't2', title: 'Second', blockedBy: ['t1'], acceptance: ['t2'] }, { id: 't3', title: 'Third', acceptance: ['t3'] }] },
      stages: { 'team-exec': { sleepMs: 200 } },
    };
    const { world, runId, integration, events } = await runThroughGit(scenario, 'add three greetings', ['machine-a', 'machine-b']);
    // Every task done at its first attempt (the ends say why not).
    const ends = events.filter((e) => e.event === 'task_finished' && ['t1', 't2', 't3'].includes(e.task_id));
    expect(ends.map((e) => e.event === 'task_finished' && `${e.task_id} ${e.status}`).sort(), JSON.stringify(ends)).toEqual(['t1 completed', 't2 completed', 't3 completed']);
    // The remote holds the merged work; t2's branch began after t1 was merged.
    git(env.project, '--git-dir', origin, 'rev-parse', '--verify', `refs/heads/${integration}`);
    for (const task of ['t1', 't2', 't3']) expect(git(env.project, '--git-dir', origin, 'show', `${integration}:sim-output/${task}.txt`)).toContain(`task ${task} attempt 1`);
    expect(git(env.project, '--git-dir', origin, 'show', `${integration}--t2:sim-output/t1.txt`)).toContain('task t1 attempt 1');
    // Each merge is in the log, and the writer's own checkout is untouched.
    expect(events.filter((e) => e.event === 'merge_done').map((e) => e.event === 'merge_done' && e.task_id).sort()).toEqual(['t1', 't2', 't3']);
    expect(existsSync(join(world.writer, 'sim-output'))).toBe(false);
    expect(git(world.writer, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    // The verifier read the merged work: its worktree was of team/<run>.
    expect(events.some((e) => e.event === 'task_finished' && e.task_id === 'verify-1' && e.status === 'completed')).toBe(true);

    // `team land --store` in another clone fetches team/<run> from the remote and merges it into its
    // branch; the landing is in the store's log, and a second land has nothing to do.
    const lander = join(env.project, 'lander');
    git(env.project, 'clone', '--quiet', origin, lander);
    writeFileSync(join(lander, 'README.md'), '# greetings, changed and not committed\n');
    const dirty = await world.team(['land', '--store', world.url], lander, GIT_ENV);
    expect(dirty.exitCode).toBe(2);
    expect(String(dirty.stderr)).toContain('your working tree has uncommitted changes');
    expect(git(lander, 'log', '--format=%s', 'main')).toBe('base');
    git(lander, '-c', 'user.name=Lander', '-c', 'user.email=lander@example.com', 'commit', '--quiet', '-am', 'readme');
    const landed = await world.team(['land', '--store', world.url, '--run', runId], lander, GIT_ENV);
    expect(landed.exitCode, String(landed.stderr)).toBe(0);
    expect(String(landed.stderr)).toMatch(new RegExp(`landed ${integration} into main \\([0-9a-f]{10}\\)`));
    for (const task of ['t1', 't2', 't3']) expect(git(lander, 'show', `main:sim-output/${task}.txt`)).toContain(`task ${task} attempt 1`);
    const landedEvents = (await world.events(runId)).filter((e) => e.event === 'branch_landed');
    expect(landedEvents).toMatchObject([{ branch: integration, into: 'main', commit: git(lander, 'rev-parse', 'HEAD') }]);
    const again = await world.team(['land', '--store', world.url], lander, GIT_ENV);
    expect(again.exitCode).toBe(0);
    expect(String(again.stderr)).toContain(`${integration} is already in main; nothing to do`);
    expect((await world.events(runId)).filter((e) => e.event === 'branch_landed')).toHaveLength(1);
  });

  it('keeps both sides of a conflict: the fix attempt on a worker gets the merge with its markers, and the resolution merges both task branches', async () => {
    const FILE = 'shared.txt';
    const RESOLVED = 'line one\nTWO by t1 and t2\nline three\n';
    const { origin } = makeRepos(env.project, ['writer', 'machine-a'], { [FILE]: 'line one\nline two\nline three\n' });
    const scenario = {
      name: 'conflict',
      plan: { tasks: [{ id: 't1', acceptance: ['line 2'] }, { id: 't2', acceptance: ['line 2 too'] }] },
      rules: [
        { match: { task: 't1' }, do: { files: [], edits: [{ path: FILE, line: 2, text: 'TWO by t1' }] } },
        { match: { task: 't2' }, do: { files: [], edits: [{ path: FILE, line: 2, text: 'TWO by t2' }] } },
        { match: { task: 'fix-*' }, do: { files: [{ path: FILE, content: RESOLVED }] } },
      ],
    };
    const { integration, events } = await runThroughGit(scenario, 'both change line two', ['machine-a']);
    const failed = events.filter((e) => e.event === 'merge_failed');
    expect(failed.map((e) => e.event === 'merge_failed' && [e.reason, e.files])).toEqual([['conflict', [FILE]]]);
    const loser = failed[0]!.event === 'merge_failed' ? failed[0]!.task_id : '';
    // The fix's branch holds the merge of the loser's branch; the remote's team/<run> holds the resolution and both branches.
    expect(git(env.project, '--git-dir', origin, 'show', `${integration}:${FILE}`)).toBe(RESOLVED.trimEnd());
    for (const task of ['t1', 't2']) git(env.project, '--git-dir', origin, 'merge-base', '--is-ancestor', `${integration}--${task}`, integration);
    expect(git(env.project, '--git-dir', origin, 'log', '--format=%P', '-1', `${integration}--fix-1-task-${loser}`).split(' ')).toHaveLength(2);
  });

  it('runs the best of 2 on team workers: each candidate on its own branch, the selector\'s pick merged into team/<run>, the other kept on the remote', async () => {
    const { origin } = makeRepos(env.project, ['writer', 'machine-a', 'machine-b']);
    const scenario = {
      name: 'best-of',
      plan: { tasks: [{ id: 't1', title: 'Greet', bestOf: 2, files: ['greeting.txt'], acceptance: ['greeting'] }, { id: 't2', title: 'After', blockedBy: ['t1'], files: ['after.txt'], acceptance: ['after'] }] },
      rules: [
        { match: { stage: 'team-exec', task: 't1--c1' }, do: { sleepMs: 300, files: [{ path: 'greeting.txt', content: 'hello from c1\n' }, { path: 'broken', content: 'x\n' }] } },
        { match: { stage: 'team-exec', task: 't1--c2' }, do: { sleepMs: 300, files: [{ path: 'greeting.txt', content: 'hello from c2\n' }] } },
        { match: { stage: 'team-exec', task: 't2' }, do: { files: [{ path: 'after.txt', content: 'after\n' }] } },
      ],
    };
    // The gate c1's work breaks: the sim's selector picks the candidate whose gates passed.
    const { integration, events } = await runThroughGit(scenario, 'greet the user', ['machine-a', 'machine-b'], { verify: { commands: [GATE] } });
    const ends = events.filter((e) => e.event === 'task_finished' && ['t1--c1', 't1--c2', 't1', 't2'].includes(e.task_id));
    expect(ends.map((e) => e.event === 'task_finished' && `${e.task_id} ${e.status}`).sort(), JSON.stringify(ends)).toEqual(['t1 completed', 't1--c1 completed', 't1--c2 completed', 't2 completed']);
    // Each candidate was taken by a team worker.
    expect(events.filter((e) => e.event === 'attempt_taken').map((e) => e.event === 'attempt_taken' && e.task_id).filter((id) => id && id.startsWith('t1--c')).sort()).toEqual(['t1--c1', 't1--c2']);
    // Each completed candidate's gate ran on the writer's machine, in a worktree of its pushed branch.
    expect(events.filter((e) => e.event === 'candidate_gated').map((e) => e.event === 'candidate_gated' && [e.task_id, e.gates.map((g) => [g.command, g.exitCode])]).sort()).toEqual([
      ['t1--c1', [[GATE, 1]]],
      ['t1--c2', [[GATE, 0]]],
    ]);
    expect(events.filter((e) => e.event === 'candidate_picked').map((e) => e.event === 'candidate_picked' && [e.task_id, e.pick])).toEqual([['t1', 't1--c2']]);
    // The pick is merged under the select task; the other candidate's branch is on the remote, not merged.
    expect(events.filter((e) => e.event === 'merge_done').map((e) => e.event === 'merge_done' && e.task_id).sort()).toEqual(['t1', 't2']);
    expect(git(env.project, '--git-dir', origin, 'show', `${integration}:greeting.txt`)).toBe('hello from c2');
    expect(git(env.project, '--git-dir', origin, 'show', `${integration}--t1--c1:greeting.txt`)).toBe('hello from c1');
    // What waits for t1 starts from the pick.
    expect(git(env.project, '--git-dir', origin, 'show', `${integration}--t2:greeting.txt`)).toBe('hello from c2');
  });

  it('refuses a team.remote the repository does not have, exit 2, starting nothing', async () => {
    makeRepos(env.project, ['writer']);
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, { name: 'no-remote' }, { remote: 'upstream' }));
    const run = await world.team(['2:executor', 'add a greeting', '--agent', 'sim']);
    expect(run.exitCode).toBe(2);
    expect(String(run.stderr)).toContain('team.remote: this repository has no remote "upstream" (`git remote -v` lists its remotes)');
    expect(await world.runId()).toBeUndefined();
  });
});

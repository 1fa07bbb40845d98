// `team wait --timeout` (exit 5 with a summary of progress since the last wait) and `team list`.
import { afterEach, describe, expect, it } from 'vitest';
import { endDetachedRuns, makeGatedProject } from '../helpers/detached.js';
import { makeProject, removeProjects } from '../helpers/project.js';
import { makeSimProject } from '../helpers/sim-project.js';
import { makeGitProject } from '../helpers/git-project.js';
import { waitFor } from '../helpers/wait-event.js';

// Two tasks after the plan, one blocked by the other: both merge into the run's branch.
const DIAMOND = { name: 'two-in-a-row', plan: { tasks: [{ id: 'one', title: 'First' }, { id: 'two', title: 'Second', blockedBy: ['one'] }] } };

afterEach(async () => {
  await endDetachedRuns();
  removeProjects();
});

describe('team wait', () => {
  it('exits 5 at the timeout with a summary, then says what changed since that wait', async () => {
    const project = makeGatedProject();
    const started = await project.team('1:executor', 'do the slow thing', '--detach');
    const runId = /teamline run (\S+) runs detached/.exec(started.stdout)![1]!;
    await waitFor('slow a1 to be spawned', () => project.listEvents(runId).some((name) => name.includes('-attempt_spawned-slow-a1-')));

    const first = await project.team('wait', '--timeout', '1');
    expect(first.exitCode, first.stderr).toBe(5);
    const lines = first.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^run ${runId} is still running after 1s of waiting \\(`));
    expect(lines).toContain('  stage team-exec · fix loop 0 of 3');
    expect(lines).toContain('  tasks: 0 done, 1 running, 0 failed, 0 pending (of 1)'); // the plan's tasks, as team watch counts them
    expect(lines).toContain('  so far: completed: plan; running: slow');
    expect(lines).toContain('  needs attention: nothing');
    const next = lines.find((l) => l.startsWith('  next: '))!;
    expect(next).toMatch(new RegExp(`^  next: team wait --run ${runId} --since \\d+ --round 2 --timeout 1 \\(it prints "still running" again while the run goes on\\)$`));
    expect(lines.length).toBeLessThan(25);

    // The next command as printed: its cursor tells the changes since that wait.
    const nextArgs = /^ {2}next: team (.+?) \(/.exec(next)![1]!.split(' ');
    const second = await project.team(...nextArgs, '--json');
    expect(second.exitCode).toBe(5);
    const doc = JSON.parse(second.stdout) as { type: string; summary: string[] };
    expect(doc.type).toBe('wait.timeout');
    const since = nextArgs[nextArgs.indexOf('--since') + 1];
    expect(doc.summary.find((l) => l.startsWith('  since the last wait'))).toBe(`  since the last wait (event ${since}): no change`);
    // Each wait's next command differs from the last one's, also when the log did not grow.
    const followUp = doc.summary.find((l) => l.startsWith('  next: '))!;
    expect(followUp).toBe(next.replace('--round 2', '--round 3'));

    project.write('release', 'go\n');
    const third = await project.team('wait', '--timeout', '600');
    expect(third.exitCode).toBe(0);
    expect(third.stdout).toContain(`── run ${runId}: COMPLETED`);
  });

  it('returns at once with the code of a run that already ended', async () => {
    const project = makeSimProject('e2e-one-task');
    expect((await project.team('1:executor', 'refuse empty names', '--agent', 'sim')).exitCode).toBe(0);
    const waited = await project.team('wait', '--timeout', '1');
    expect(waited.exitCode).toBe(0);
    expect(waited.stdout).toContain('COMPLETED');
  });

  it('tells an ended run its duration from the log, the same at every later wait', async () => {
    const project = makeSimProject('e2e-one-task');
    expect((await project.team('1:executor', 'refuse empty names', '--agent', 'sim')).exitCode).toBe(0);
    const seconds = (text: string) => Number(/ (\d+\.\d)s\n/.exec(text)?.[1]);
    const first = await project.team('wait');
    const json = JSON.parse((await project.team('list', '--json')).stdout) as Array<{ seconds: number }>;
    // The clock moves on between the waits; an ended run's duration does not.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = await project.team('wait');
    expect(seconds(first.stdout)).toBeGreaterThanOrEqual(0);
    expect(seconds(second.stdout)).toBe(seconds(first.stdout));
    // One duration, shown to a tenth by the wait and to the second by the list: rounding the tenth again
    // is not the list's rounding (1.46 s is 1.5s in the wait and 1 s in the list), so they differ by at
    // most half a second.
    expect(Math.abs(seconds(first.stdout) - json[0]!.seconds)).toBeLessThanOrEqual(0.5);
    // The plan's one task, as the outcome counts it; the planner's and verifier's attempts are attempts.
    expect(first.stdout).toMatch(/completed: 1 of 1 tasks completed/);
    expect(first.stdout).toMatch(/^ {3}1 task, \d+ attempts \(0 failed\)/m);
  });

  it('tells, when the run ended, where the work is, the land command, the checkpoint file and what the handoffs decided, risked and left', async () => {
    const project = makeGitProject(DIAMOND, {}, { 'README.md': 'base\n' });
    const ran = await project.run('2:executor', 'validate the inputs', '--agent', 'sim');
    expect(ran.exitCode, ran.stderr).toBe(0);
    const runId = project.readRun().runId;

    const waited = await project.run('wait');
    expect(waited.exitCode).toBe(0);
    const lines = waited.stdout.split('\n');
    expect(lines).toContain(`     the work is on team/${runId}: \`team land --run ${runId}\` merges it into main`);
    expect(lines).toContain("   .checkpoints/team.checkpoint.json: the run's checkpoint record, kept in the project and meant to be committed with its work");
    expect(lines).toContain('   handoffs (decided / rejected / risks / remaining):');
    expect(lines).toContain('     01-team-plan.md');
    expect(lines.some((l) => /^ {7}Decided: \S/.test(l))).toBe(true);
    expect(lines.some((l) => /^ {7}Remaining: nothing: the run ends completed/.test(l))).toBe(true);
    const doc = JSON.parse((await project.run('wait', '--json')).stdout) as { handoffs: Array<{ handoff: string; decided: string }>; branches: { branch: string } };
    expect(doc.handoffs[0]).toMatchObject({ handoff: '01-team-plan.md' });
    expect(doc.branches.branch).toBe(`team/${runId}`);

    const status = await project.run('status');
    expect(status.stdout).toContain(`  the work is on team/${runId}: \`team land --run ${runId}\` merges it into main`);

    // What `team clean` records later does not lengthen the run in `team list`.
    const before = JSON.parse((await project.run('list', '--json')).stdout) as Array<{ seconds: number }>;
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect((await project.run('land')).exitCode).toBe(0);
    const cleaned = await project.run('clean');
    expect(cleaned.exitCode, cleaned.stderr).toBe(0);
    expect(project.listEvents(runId).some((name) => name.includes('-worktree_removed-') || name.includes('-branch_deleted-'))).toBe(true);
    const after = JSON.parse((await project.run('list', '--json')).stdout) as Array<{ seconds: number }>;
    expect(after[0]!.seconds).toBe(before[0]!.seconds);
  });

  it('refuses a bad --timeout and an unknown run with exit 2, naming them', async () => {
    const project = makeProject();
    const bad = await project.team('wait', '--timeout', 'soon');
    expect(bad).toMatchObject({ exitCode: 2, stderr: 'team wait: --timeout must be a whole number from 1 to 604800, not "soon"\n' });
    const none = await project.team('wait');
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('no run in');
  });
});

describe('team list', () => {
  it('lists each run with its mode, status, cost and the session that started it', async () => {
    const project = makeSimProject('e2e-one-task');
    expect((await project.team('1:executor', 'refuse empty names', '--agent', 'sim')).exitCode).toBe(0);
    const env = { CLAUDE_CODE_SESSION_ID: '8a718ed2-2856-435b-bd9a-63c5b8291b42' };
    const { runTeam } = await import('../helpers/team.js');
    const second = await runTeam(['ralph', '1:executor', 'refuse empty names again', '--agent', 'sim', '--max-iterations', '1'], { cwd: project.dir, env });
    expect(second.exitCode, second.stderr).toBe(0);

    const rows = JSON.parse((await project.team('list', '--json')).stdout) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ task: 'refuse empty names', mode: 'team', status: 'completed', session: '' });
    expect(rows[1]).toMatchObject({ task: 'refuse empty names again', mode: 'ralph', status: 'completed', session: 'claude-code:8a718ed2-2856-435b-bd9a-63c5b8291b42' });
    expect(rows.every((r) => typeof r.seconds === 'number' && typeof r.costUsd === 'number' && typeof r.started === 'string')).toBe(true);

    const table = (await project.team('list')).stdout.split('\n');
    expect(table[0]).toMatch(/^RUN +MODE +STATUS +STARTED +DURATION +COST +SESSION +TASK$/);
    expect(table[2]).toContain('claude-code:8a718ed2-2856-435b-bd9a-63c5b8291b42');
    expect((await project.team('status')).stdout).toContain('  session claude-code:8a718ed2-2856-435b-bd9a-63c5b8291b42\n');
  });

  it('says so when the project has no run', async () => {
    const project = makeProject();
    expect(await project.team('list')).toEqual({ exitCode: 0, stdout: `no run in ${project.dir}\n`, stderr: '' });
  });
});

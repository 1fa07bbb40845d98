// The watch on the user's checkout in an unfenced run (team.fence "off", or a machine where the fence
// cannot be built): an agent that discards the user's uncommitted edit or moves one of their
// branches is reported as needing attention (end message, status, land), with the attempts running
// then; `team land` refuses until the person acknowledges it. (With the fence, test/isolation/fence.test.ts:
// no agent can touch the checkout.)
import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { makeGitProject, type GitProject } from '../helpers/git-project.js';

afterAll(removeProjects);

// True once the latest run's log holds a checkout_changed (false while the run is not readable yet).
function seenChange(project: GitProject): boolean {
  try {
    return eventsOf(project.readRun().events, 'checkout_changed').length > 0;
  } catch {
    return false;
  }
}

// The user's checkout, as an agent in a worktree finds it.
const CHECKOUT = 'top=$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")';

// The agents here write to the user's checkout, as unfenced agents can.
const UNFENCED = { team: { fence: 'off' } };

describe('worktree isolation: the watch on the user\'s checkout', () => {
  it('reports an agent that discarded the user\'s uncommitted edit and moved a branch of theirs, and land refuses until acknowledged', async () => {
    const project = makeGitProject(
      { plan: { tasks: [{ id: 't1', acceptance: ['a'] }] }, rules: [{ match: { task: 't1' }, do: { shell: `${CHECKOUT} && git -C "$top" checkout -- notes.txt && c=$(echo stray | git commit-tree "HEAD^{tree}" -p HEAD) && git -C "$top" branch -f side "$c"` } }] },
      UNFENCED,
      { 'notes.txt': 'committed\n' },
    );
    project.git('branch', 'side');
    const sideBefore = project.git('rev-parse', 'side');
    project.write('notes.txt', 'committed\nmy uncommitted edit\n');
    const result = await project.run('2:executor', 'touch the user checkout', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    expect(eventsOf(run.events, 'checkout_recorded')).toHaveLength(1);
    const [changed] = eventsOf(run.events, 'checkout_changed');
    expect(changed).toMatchObject({ seen: 'at the merge of t1', attempts: ['t1 a1 on worker-1'] });
    const sideNow = project.git('rev-parse', 'side');
    expect(sideNow).not.toBe(sideBefore);
    const change = `your checkout changed while the run ran (seen at the merge of t1): branch side moved from ${sideBefore.slice(0, 10)} to ${sideNow.slice(0, 10)}; files changed: notes.txt; running then: t1 a1 on worker-1`;
    const line = `needs attention: ${change}`;
    expect(result.stderr).toContain(line);
    expect(result.stderr.split('── run')[1]).toContain(line);
    // team status says it once, in its one list of what needs attention (never "nothing" beside it).
    const status = await project.run('status');
    expect(status.stdout).toContain(`needs attention:\n  ${change}\n`);
    expect(status.stdout).not.toContain('needs attention: nothing');
    expect(status.stdout.split(change)).toHaveLength(2);
    expect(JSON.parse((await project.run('status', '--json')).stdout).attention.checkout).toEqual([change]);
    expect((await project.run('wait')).stdout).toContain(line);
    const report = join(project.dir, 'report.html');
    expect((await project.run('report', '--out', report)).exitCode).toBe(0);
    expect(readFileSync(report, 'utf8')).toContain(JSON.stringify(change).slice(1, -1));
    const before = project.git('rev-parse', 'main');
    const land = await project.run('land');
    expect(land.exitCode).toBe(2);
    expect(land.stderr).toContain(`team land: your checkout changed while the run ran (seen at the merge of t1): branch side moved from ${sideBefore.slice(0, 10)} to ${sideNow.slice(0, 10)}; files changed: notes.txt; running then: t1 a1 on worker-1; nothing was changed. If you made these changes yourself (a commit or an edit of yours during the run), they are fine: \`team land --run ${run.runId} --acknowledge\` lands the run's work beside them. If an agent made them, look at your checkout first (git status, git log, git reflog) and mend what you need, then acknowledge them the same way`);
    expect(project.git('rev-parse', 'main')).toBe(before);
    const acknowledged = await project.run('land', '--acknowledge');
    expect(acknowledged.exitCode, acknowledged.stderr).toBe(0);
    expect(eventsOf(project.readRun().events, 'checkout_acknowledged').map((e) => e.changes)).toEqual([1]);
    const after = (await project.run('status')).stdout;
    expect(after).toContain(`acknowledged: ${change}`);
    expect(after).toContain('needs attention: nothing');
  });

  it('tells the user that a commit of their own during the run is fine to acknowledge, and lands beside it', async () => {
    // The user commits on their branch while t1 runs (done from the agent's shell here, at a known moment).
    const project = makeGitProject(
      { plan: { tasks: [{ id: 't1', acceptance: ['a'] }] }, rules: [{ match: { task: 't1' }, do: { shell: `${CHECKOUT} && echo mine > "$top/mine.txt" && git -C "$top" add mine.txt && git -C "$top" -c user.name=U -c user.email=u@example.com commit -q -m "my own commit"` } }] },
      UNFENCED,
      { 'notes.txt': 'committed\n' },
    );
    const result = await project.run('2:executor', 'work while the user commits', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const land = await project.run('land');
    expect(land.exitCode).toBe(2);
    expect(land.stderr).toContain('If you made these changes yourself (a commit or an edit of yours during the run), they are fine:');
    expect(land.stderr).toContain("--acknowledge` lands the run's work beside them");
    const acknowledged = await project.run('land', '--acknowledge');
    expect(acknowledged.exitCode, acknowledged.stderr).toBe(0);
    expect(project.git('log', '--format=%s', '-n', '5')).toContain('my own commit');
  });

  it('says nothing of the checkout when no one touched it, and notices a change made at the very end', async () => {
    const quiet = makeGitProject({ plan: { count: 1 } }, UNFENCED);
    const result = await quiet.run('2:executor', 'leave the checkout alone', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('your checkout changed');
    expect(eventsOf(quiet.readRun().events, 'checkout_changed')).toEqual([]);
    const late = makeGitProject({ plan: { count: 1 }, rules: [{ match: { stage: 'team-verify' }, do: { shell: `${CHECKOUT} && echo appended >> "$top/scenario.json"` } }] }, UNFENCED);
    const lateRun = await late.run('2:executor', 'touch it in verify', '--agent', 'sim');
    expect(lateRun.exitCode, lateRun.stderr).toBe(0);
    expect(lateRun.stderr).toContain('needs attention: your checkout changed while the run ran (seen at the end of the run): files changed: scenario.json');
    expect(readFileSync(join(late.dir, 'scenario.json'), 'utf8')).toContain('appended');
  });

  it('names the change in `team wait`\'s summary while the run still runs', async () => {
    const held = `${CHECKOUT} && until [ -e "$top/.team/release" ]; do sleep 0.05; done`;
    const project = makeGitProject({
      plan: { tasks: [{ id: 't1', acceptance: ['a'] }, { id: 't2', blockedBy: ['t1'], acceptance: ['b'] }] },
      rules: [{ match: { task: 't1' }, do: { shell: `${CHECKOUT} && echo mine > "$top/stray.txt"` } }, { match: { task: 't2' }, do: { shell: held } }],
    }, UNFENCED);
    const running = project.run('2:executor', 'touch the checkout, then wait', '--agent', 'sim');
    for (let i = 0; i < 400 && !seenChange(project); i += 1) await sleep(50);
    const wait = await project.run('wait', '--timeout', '1');
    writeFileSync(join(project.dir, '.team', 'release'), '');
    expect((await running).exitCode).toBe(0);
    expect(wait.exitCode).toBe(5);
    expect(wait.stdout).toContain('  needs attention:\n    your checkout changed while the run ran (seen at the merge of t1): files changed: stray.txt; running then: t1 a1 on worker-1\n');
  });
});

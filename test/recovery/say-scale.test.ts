// `team say` and `team scale` as a new user meets them on a live sim run in a real git repository
// with two or more workers: a message nobody would read is refused naming the current roster and the
// tasks not ended; one that was never read shows as undelivered once its worker is drained.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commitAsRepo, GIT_ENV } from '../helpers/git-project.js';
import { makeRecoveryProject, removeRecoveryProjects } from '../helpers/recovery-project.js';
import { ended, killOrchestrator } from '../helpers/recovery-wait.js';
import { waitFor, waitForEvent } from '../helpers/wait-event.js';

afterAll(removeRecoveryProjects);

describe('team say on a scaled run', () => {
  it('refuses a message to an ended task or a worker not in the roster, and shows the unread one of a drained worker', { timeout: 60_000 }, async () => {
    const project = makeRecoveryProject('say-scale', { env: { ...GIT_ENV } });
    Object.assign(project.env, { TEAM_SIM_LEDGER: join(project.dir, '.team', 'sim-ledger.jsonl') });
    commitAsRepo(project.dir);
    const run = project.spawn('2:executor', 'write four parts', '--agent', 'sim');
    await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't1' && e.attempt === 1, { stopIf: ended(run) });
    const id = project.runId();

    const toPlan = await project.team('say', '--to', 'plan', 'too late for the plan');
    expect(toPlan.exitCode).toBe(2);
    expect(toPlan.stderr).toContain('--to: task plan has ended (completed): no attempt of it will read the message; send it to a worker (worker-1, worker-2) or a task not ended (t1, t2, t3, t4)');
    const toTask = await project.team('say', '--to', 't4', 'mind the header');
    expect(toTask.exitCode, toTask.stderr).toBe(0);
    const toWorker = await project.team('say', '--to', 'worker-2', 'for worker two');
    expect(toWorker.exitCode, toWorker.stderr).toBe(0);
    await waitFor('both messages recorded', () => project.events().filter((e) => e.event === 'team_message').length === 2);

    expect((await project.team('scale', '1')).exitCode).toBe(0);
    await waitForEvent(project, 'workers_changed', undefined, { stopIf: ended(run) });
    expect((await project.team('scale', '3')).exitCode).toBe(0);
    const grown = await waitFor('the second change of workers', () => project.events().filter((e) => e.event === 'workers_changed')[1]);
    expect(grown.roster).toEqual(['worker-1', 'worker-3', 'worker-4']);

    const toDrained = await project.team('say', '--to', 'worker-2', 'are you there?');
    expect(toDrained.exitCode).toBe(2);
    expect(toDrained.stderr).toMatch(new RegExp(`--to: worker-2 is not a worker of run ${id} now; send it to a worker \\(worker-1, worker-3, worker-4\\) or a task not ended \\(`));
    const toLead = await project.team('say', '--to', 'lead', 'hello');
    expect(toLead.exitCode).toBe(2);
    expect(toLead.stderr).toContain(`--to: lead is neither a worker of run ${id} nor one of its tasks; send it to a worker (worker-1, worker-3, worker-4)`);
    expect(toLead.stderr).not.toContain('worker-1..');

    const result = await run.result;
    expect(result.exitCode, result.stderr).toBe(0);
    // worker-2 made no tool call before it was drained: its message was never read; t4's attempt had its message in its prompt.
    const status = await project.team('status');
    // It needs attention, in team status's one list as in the report (once, not also under team:).
    const attention = status.stdout.split('\nneeds attention:')[1] ?? '';
    expect(attention).toMatch(/^\n {2}undelivered: message from human to worker-2 at \d\d:\d\d:\d\d \(worker-2 was drained\): for worker two\n/);
    expect(status.stdout.match(/undelivered: /g)).toHaveLength(1);
    expect(status.stdout).not.toContain('mind the header');
    const json = JSON.parse((await project.team('status', '--json')).stdout) as { team: { undelivered: Array<{ to: string; text: string; why: string }> }; attention: { undelivered: unknown[] } };
    expect(json.team.undelivered).toEqual([expect.objectContaining({ to: 'worker-2', text: 'for worker two', why: 'worker-2 was drained' })]);
    expect(json.attention.undelivered).toEqual(json.team.undelivered);
  });
});

describe('team scale feedback', () => {
  it('says when nothing drives the run, shows the pending request, the draining workers and the current number in the report', { timeout: 60_000 }, async () => {
    const project = makeRecoveryProject('scale-drain', { env: { ...GIT_ENV } });
    Object.assign(project.env, { TEAM_SIM_LEDGER: join(project.dir, '.team', 'sim-ledger.jsonl') });
    commitAsRepo(project.dir);
    const run = project.spawn('3:executor', 'write four parts', '--agent', 'sim');
    await waitFor('three attempts started', () => project.events().filter((e) => e.event === 'attempt_spawned' && /^t\d$/.test(String(e.task_id))).length === 3);
    const id = project.runId();
    const down = await project.team('scale', '1');
    expect(down.stdout).toBe(`asked run ${id} to run with 1 worker: its orchestrator records it now (\`team status\` shows the workers)`);
    const changed = await waitForEvent(project, 'workers_changed', undefined, { stopIf: ended(run) });
    // Nothing drives the run from here: its attempts stay running in the log, on the workers drained.
    await killOrchestrator(run);
    const kept = changed.roster as string[];
    const onDrained = project.events().filter((e) => e.event === 'attempt_spawned' && /^t\d$/.test(String(e.task_id)) && !kept.includes(String(e.worker)));
    expect(onDrained).toHaveLength(2);
    const draining = onDrained.map((e) => `${String(e.worker)} (${String(e.task_id)} a1)`).sort().join(', ');

    const up = await project.team('scale', '4');
    expect(up.exitCode, up.stderr).toBe(0);
    expect(up.stdout).toBe(`asked run ${id} to run with 4 workers: no orchestrator drives the run now; it is recorded when the run resumes (\`team status\` shows it pending)`);
    const status = await project.team('status');
    expect(status.stdout).toContain(`  workers 1: ${kept[0]}\n  draining: ${draining}\n  scale requested: 4 workers, recorded when the run resumes\n`);
    const json = JSON.parse((await project.team('status', '--json')).stdout) as { scale: { requested: number | null; draining: unknown[] } };
    expect(json.scale.requested).toBe(4);
    expect(json.scale.draining).toHaveLength(2);

    const report = await project.team('report');
    expect(report.exitCode, report.stderr).toBe(0);
    const html = readFileSync(report.stdout.trim(), 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html)![1]!) as { workers: number; run: { workers: number } };
    expect(data).toMatchObject({ workers: 1, run: { workers: 3 } });
    expect(html).toContain("(data.workers === 1 ? ' worker · ' : ' workers · ')");
  });
});

// A whole run on the PostgreSQL store: the writer appends the log (each attempt's job with its
// task_started), two team workers in folders of their own (as two machines) run its attempts, and
// the writer turns their reports into the log's facts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { until } from '../team-worker/worker-fixture.js';
import { reportName } from '../helpers/worker-reports.js';
import { clusterAndProject } from './pg-fixture.js';
import { closeScaleOuts, openScaleOut } from './scale-out-fixture.js';

const env = clusterAndProject('teamline-scale-out-');
const worlds = closeScaleOuts();

const FOUR_TASKS = {
  name: 'scale-out',
  plan: { tasks: ['t1', 't2', 't3', 't4'].map((id) => ({ id, title: `Task ${id}`, acceptance: [`${id} written`] })) },
  stages: { 'team-exec': { sleepMs: 300 } },
};

describe('a run on the PostgreSQL store', () => {
  it('completes with two team workers in separate folders, each attempt run once, the log written by the writer alone', async () => {
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, FOUR_TASKS));
    const a = world.worker('machine-a', ['--max', '2']);
    const b = world.worker('machine-b', ['--max', '2']);
    const run = await world.team(['2:executor', 'add four greetings', '--agent', 'sim']);
    expect(run.exitCode, String(run.stderr)).toBe(0);
    expect(String(run.stderr)).toContain('COMPLETED');
    const runId = (await world.runId())!;
    const events = await world.events(runId);
    // Every attempt ran once, on one machine or the other.
    const ledger = world.ledger().filter((l) => l.run === runId);
    const attempts = ledger.map((l) => `${l.task}#${l.attempt}`);
    expect(new Set(attempts).size).toBe(attempts.length);
    expect(ledger.filter((l) => l.stage === 'team-exec').map((l) => l.task).sort()).toEqual(['t1', 't2', 't3', 't4']);
    expect([...world.outputsOf(a), ...world.outputsOf(b)].sort()).toEqual(['t1', 't2', 't3', 't4']);
    // The log says who took each attempt, and ends completed.
    const taken = events.filter((e) => e.event === 'attempt_taken');
    const finished = events.filter((e) => e.event === 'task_finished');
    expect(taken.map((e) => `${e.task_id}#${e.attempt}`).sort()).toEqual(finished.map((e) => `${e.task_id}#${e.attempt}`).sort());
    expect(finished.every((e) => e.event === 'task_finished' && e.status === 'completed')).toBe(true);
    expect(events.at(-1)?.event).toBe('run_completed');
    // The handoffs are in the log, text and all: a writer on any machine has them.
    const handoffs = events.filter((e) => e.event === 'handoff_written');
    expect(handoffs.length).toBeGreaterThanOrEqual(3);
    expect(handoffs.every((e) => e.event === 'handoff_written' && typeof e.text === 'string' && e.text.startsWith('## Handoff: '))).toBe(true);
    // `team status` of the store shows the same run, and its report the handoffs' texts, from any folder.
    const status = await world.team(['status', '--json']);
    expect(JSON.parse(String(status.stdout))).toMatchObject({ status: 'completed' });
    const page = join(env.project, 'report.html');
    expect((await world.team(['report', '--store', world.url, '--out', page], env.project)).exitCode).toBe(0);
    const data = JSON.parse(/<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(readFileSync(page, 'utf8'))![1]!) as { handoffs: Array<{ text: string }> };
    expect(data.handoffs.map((h) => h.text)).toEqual(handoffs.map((e) => e.event === 'handoff_written' && e.text));
    for (const machine of [a, b]) machine.child.kill('SIGTERM');
    expect((await a.child).exitCode).toBe(0);
    expect((await b.child).exitCode).toBe(0);
  });

  it('starts detached on the store, and team wait follows the run to its end, from any folder', async () => {
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, { name: 'detached', plan: { tasks: [{ id: 't1', title: 'One', acceptance: ['written'] }] }, stages: { 'team-exec': { sleepMs: 1000 } } }));
    world.worker('machine-a');
    const started = await world.team(['1:executor', 'add one greeting', '--agent', 'sim', '--detach']);
    expect(started.exitCode, String(started.stderr)).toBe(0);
    const runId = /teamline run (\S+) runs detached/.exec(String(started.stdout))?.[1];
    expect(runId).toBe(await world.runId());
    // Still running when the wait begins: the wait ends with the run, exit 0.
    expect((await world.store.endOf(runId!))).toBeUndefined();
    const waited = await world.team(['wait', '--run', runId!, '--store', world.url], env.project);
    expect(waited.exitCode, String(waited.stderr)).toBe(0);
    expect(String(waited.stdout)).toContain('COMPLETED');
    expect(await world.store.endOf(runId!)).toBe('completed');
  });

  it('waits for a worker: the attempts stay queued until one comes, then the run completes', async () => {
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, { name: 'one', plan: { tasks: [{ id: 't1', title: 'One', acceptance: ['written'] }] } }));
    const run = world.team(['1:executor', 'add one greeting', '--agent', 'sim']);
    const runId = await until(() => world.runId(), 'the run in the store');
    await until(async () => (await world.events(runId)).some((e) => e.event === 'task_started'), 'the plan attempt queued');
    expect((await world.events(runId)).some((e) => e.event === 'attempt_taken')).toBe(false);
    world.worker('machine-a');
    expect((await run).exitCode).toBe(0);
  });
  it('runs an agent whose config says tmux in a pane of the run\'s own tmux server on the worker, and ends that server after', async () => {
    const tmuxDir = mkdtempSync(join(tmpdir(), 'teamline-worker-tmux-'));
    let runId = '';
    try {
      const world = worlds.add(await openScaleOut(env.cluster.url, env.project, { name: 'panes', plan: { tasks: [{ id: 't1', title: 'One', acceptance: ['written'] }] } }, {}, { tmux: true }));
      const a = world.worker('machine-a', [], { TMUX_TMPDIR: tmuxDir });
      const run = await world.team(['1:executor', 'add one greeting', '--agent', 'sim']);
      expect(run.exitCode, String(run.stderr)).toBe(0);
      runId = (await world.runId())!;
      // Each agent the worker said it started ran in a pane: its launch record on the worker names the pane.
      const taken = (await world.reports(runId)).filter((r) => reportName(r) === 'attempt_taken');
      expect(taken.length).toBeGreaterThanOrEqual(3);
      for (const report of taken) {
        const launch = JSON.parse(readFileSync(join(a.dir, '.team/worker/attempts', runId, report.taskId, `a${report.attempt}`, 'worker.json'), 'utf8')) as { handle: object };
        expect(launch.handle).toMatchObject({ backend: 'tmux', server: `team-${runId}`, socketDir: expect.stringContaining(tmuxDir), pid: report.body.pid, pidStart: report.body.pid_start });
      }
      expect(world.outputsOf(a)).toEqual(['t1']);
      const server = await execa('tmux', ['-L', `team-${runId}`, 'list-sessions'], { env: { TMUX_TMPDIR: tmuxDir, TMUX: undefined }, reject: false, stdin: 'ignore' });
      expect(server.exitCode, 'the run\'s tmux server is gone').not.toBe(0);
    } finally {
      // A failed test leaves no server of its own behind.
      if (runId) await execa('tmux', ['-L', `team-${runId}`, 'kill-server'], { env: { TMUX_TMPDIR: tmuxDir, TMUX: undefined }, reject: false, stdin: 'ignore' });
      rmSync(tmuxDir, { recursive: true, force: true });
    }
  });
});

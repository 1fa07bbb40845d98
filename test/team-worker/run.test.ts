// `team worker` runs attempts from PostgreSQL as the orchestrator would, reports them, completes
// their jobs, and shares a queue with other workers without running anything twice.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { judgeResult, readResult, type ResultFileText } from '../../src/domain/result.js';
import { attemptJobId } from '../../src/store/pg/attempt-job.js';
import { writeRequest } from '../../src/store/pg/requests.js';
import { isRunning } from '../helpers/proc-groups.js';
import { reportName, takenAgent } from '../helpers/worker-reports.js';
import { ROOT } from '../helpers/team.js';
import { clusterAndProject } from '../store/pg-fixture.js';
import { closeWorlds, openWorld, readLedger, until } from './worker-fixture.js';

const env = clusterAndProject('teamline-worker-');
const worlds = closeWorlds();

describe('team worker', () => {
  it('runs a job to a finished report, then completes the job', async () => {
    const world = worlds.add(await openWorld(env.cluster.url, env.project));
    await world.start([['t1', 1]], false);
    const a = world.worker('machine-a');
    const reports = await world.reportsOf('t1', 1, 'finished');
    // The worker tells what it did in the log's own events: it took the attempt and started its agent.
    expect(reports.map(reportName)).toEqual(['attempt_taken', 'finished']);
    const [taken, finished] = reports as [(typeof reports)[0], (typeof reports)[0]];
    expect(taken.body).toEqual({ event: 'attempt_taken', task_id: 't1', attempt: 1, worker: 'worker-1', worker_id: taken.workerId, host: expect.any(String), pid: expect.any(Number), pid_start: expect.any(Number), boot_id: expect.any(String) });
    const attemptDir = join(a.dir, '.team/worker/attempts', world.runId, 't1/a1');
    const launch = JSON.parse(readFileSync(join(attemptDir, 'worker.json'), 'utf8')) as { workerId: string; handle: object };
    expect(launch).toMatchObject({ workerId: taken.workerId, handle: { backend: 'process', pid: taken.body.pid, pidStart: taken.body.pid_start, bootId: taken.body.boot_id } });
    expect(readFileSync(join(attemptDir, 'prompt.md'), 'utf8')).toBe('do t1\n');
    expect(finished.body).toMatchObject({ result: { text: '{"status":"completed","summary":"do t1"}' }, exit: { exitCode: 0, signal: null, stopped: false }, exitRecord: { exitCode: 0, signal: null } });
    expect(finished.workerId).toBe(taken.workerId);
    // The writer judges the reported text as the orchestrator judges the file.
    const judged = judgeResult('team-exec', finished.body.result as ResultFileText, '', a.dir);
    expect(judged).toEqual(readResult('team-exec', join(attemptDir, 'result.json'), '', a.dir));
    expect(judged).toMatchObject({ ok: true, source: 'file', result: { status: 'completed', summary: 'do t1' } });
    expect(readLedger(env.project)).toEqual([`t1 a1 start ${a.dir}`, `t1 a1 done ${a.dir}`]);
    await until(async () => (await world.jobStates()).every((j) => j.state === 'completed'), 'the job completed');
    // Workers never write the log: it holds the writer's step alone.
    expect((await world.store.read(world.runId)).events.map((e) => e.event)).toEqual(['task_started']);
    expect((await world.raw.query('SELECT id FROM pgboss.job')).rows).toEqual([{ id: attemptJobId(world.runId, 't1', 1) }]);
    a.child.kill('SIGTERM');
    expect((await a.child).exitCode).toBe(0);
  });

  it('reports the session id, cost and tokens its CLI shows, as the orchestrator records them', async () => {
    const world = worlds.add(await openWorld(env.cluster.url, env.project));
    await world.start([['t1', 1]], false, [], { agentName: 'claude', agent: { adapter: 'claude', command: join(ROOT, 'test/fixtures/bin/claude') } });
    world.worker('machine-a');
    const reports = await world.reportsOf('t1', 1, 'finished');
    const usage = reports.filter((r) => reportName(r) === 'attempt_usage').at(-1);
    expect(usage?.body).toEqual({ event: 'attempt_usage', task_id: 't1', attempt: 1, stage: 'team-exec', agent: 'claude', session_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-/), cost_usd: 0.0123, tokens: { input: 1000, output: 200, cached: 500 } });
    expect(reports.at(-1)!.kind).toBe('finished');
  });

  it('shares four jobs between two workers in separate folders, each run once', async () => {
    const world = worlds.add(await openWorld(env.cluster.url, env.project));
    const tasks = ['t1', 't2', 't3', 't4'];
    await world.start(tasks.map((t) => [t, 1]));
    const a = world.worker('machine-a', ['--max', '2']);
    const b = world.worker('machine-b', ['--max', '2']);
    // Each holds at most two: all four start only once both workers took two.
    const starts = await until(() => readLedger(env.project).length === 4 && readLedger(env.project), 'four agents started');
    expect(new Set(starts.map((line) => line.split(' ')[3]))).toEqual(new Set([a.dir, b.dir]));
    for (const task of tasks) await world.release(task, 1);
    for (const task of tasks) await world.reportsOf(task, 1, 'finished');
    const ledger = readLedger(env.project);
    for (const task of tasks) {
      const lines = ledger.filter((line) => line.startsWith(`${task} `));
      expect(lines.map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual([`${task} a1 start`, `${task} a1 done`]);
      expect(lines[0]!.split(' ')[3]).toBe(lines[1]!.split(' ')[3]);
    }
    await until(async () => (await world.jobStates()).filter((j) => j.state === 'completed').length === 4, 'four jobs completed');
  });

  it('stops a run’s attempts when a cancel request for that run commits, and goes on working', async () => {
    const world = worlds.add(await openWorld(env.cluster.url, env.project));
    await world.start([['t1', 1]]);
    const a = world.worker('machine-a');
    const [taken] = await world.reportsOf('t1', 1, 'attempt_taken');
    await until(() => readLedger(env.project).length === 1, 'the agent started');
    await writeRequest(world.store, world.runId, 'cancel', { by: 'test' });
    const finished = (await world.reportsOf('t1', 1, 'finished')).at(-1)!;
    expect(finished.body).toMatchObject({ exit: { stopped: true, reason: 'the run was cancelled' } });
    expect(isRunning(takenAgent(taken!)!.pid)).toBe(false);
    expect(readLedger(env.project)).toEqual([`t1 a1 start ${a.dir}`]);
    expect(a.child.exitCode).toBe(null);
  });

  it('stops the agents it started on SIGTERM, reports them stopped, and exits 0, leaving other processes alone', async () => {
    const world = worlds.add(await openWorld(env.cluster.url, env.project));
    const bystander = execa('sleep', ['300'], { detached: true, reject: false });
    try {
      await world.start([['t1', 1]]);
      const a = world.worker('machine-a');
      const [taken] = await world.reportsOf('t1', 1, 'attempt_taken');
      await until(() => readLedger(env.project).length === 1, 'the agent started');
      a.child.kill('SIGTERM');
      expect((await a.child).exitCode).toBe(0);
      const handle = takenAgent(taken!)!;
      expect(isRunning(handle.pid)).toBe(false);
      const finished = (await world.reportsOf('t1', 1, 'finished')).at(-1)!;
      expect(finished.body).toMatchObject({ exit: { stopped: true, reason: 'the worker was stopped (SIGTERM)' }, result: {} });
      expect(readLedger(env.project)).toEqual([`t1 a1 start ${a.dir}`]);
      expect(isRunning(bystander.pid!)).toBe(true);
      expect(existsSync(join(a.dir, '.team/worker/attempts', world.runId, 't1/a1/exit.json'))).toBe(true);
    } finally {
      bystander.kill('SIGKILL');
      await bystander;
    }
  });
  it('reports its agent\'s last output line while it runs, secrets redacted, and the live view reads it as the lane\'s line', async () => {
    const world = worlds.add(await openWorld(env.cluster.url, env.project));
    const release = join(env.project, 'release-tail');
    const script = `echo starting; echo "working with sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"; while [ ! -e '${release}' ]; do sleep 0.05; done; printf '{"status":"completed","summary":"tail"}' > "$TEAM_RESULT_FILE"`;
    await world.start([['t1', 1]], false, [], { agent: { adapter: 'command', command: 'sh', args: ['-c', script], promptVia: 'file' } });
    world.worker('machine-a');
    const tails = await until(async () => {
      const found = (await world.news()).reports.filter((r) => r.kind === 'output-tail');
      return found.length > 0 && found;
    }, 'an output-tail report');
    const line = String(tails.at(-1)!.body.line);
    expect(line).toContain('working with');
    expect(line).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789');
    const reader = world.store.tails(world.runId);
    await reader.read();
    expect(reader.of('t1', 1)).toBe(line);
    writeFileSync(release, '');
    await world.reportsOf('t1', 1, 'finished');
  });

  it('keeps the store\'s URL and password (TEAM_STORE, PGPASSWORD) from the agents it starts', async () => {
    const world = worlds.add(await openWorld(env.cluster.url, env.project));
    const dump = join(env.project, `agent-env-${world.runId}`);
    const script = `env > '${dump}'; printf '{"status":"completed","summary":"env"}' > "$TEAM_RESULT_FILE"`;
    await world.start([['t1', 1]], false, [], { agent: { adapter: 'command', command: 'sh', args: ['-c', script], promptVia: 'file' } });
    const password = 'never-in-an-agent';
    world.worker('machine-a', [], { storeFlag: false, env: { TEAM_STORE: world.url, PGPASSWORD: password } });
    const finished = (await world.reportsOf('t1', 1, 'finished')).at(-1)!;
    expect(finished.body).toMatchObject({ exit: { exitCode: 0 } });
    const seen = readFileSync(dump, 'utf8');
    expect(seen).toContain('TEAM_TASK_ID=t1');
    expect(seen).not.toMatch(/^(TEAM_STORE|PGPASSWORD)=/m);
    expect(seen).not.toContain(world.url);
    expect(seen).not.toContain(password);
  });
});

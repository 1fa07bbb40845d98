// Machines failing under a run on the PostgreSQL store: a worker killed mid-attempt (its lease
// expires, the attempt is retried on the other worker), the orchestrator killed (a resume from
// another folder finishes the run), and a cancel from a third folder (both workers stop their agents).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/sys/proc.js';
import { STUB_BIN } from '../helpers/agent-project.js';
import { until } from '../team-worker/worker-fixture.js';
import { clusterAndProject } from './pg-fixture.js';
import { reportName, takenAgent } from '../helpers/worker-reports.js';
import { writeReport } from '../../src/store/pg/reports.js';
import { closeScaleOuts, openScaleOut } from './scale-out-fixture.js';

const env = clusterAndProject('teamline-scale-out-fail-');
const worlds = closeScaleOuts();

const task = (id: string) => ({ id, title: `Task ${id}`, acceptance: [`${id} written`] });

// The agents that workers started and that still run, from the workers' attempt_taken reports.
async function liveAgents(world: Awaited<ReturnType<typeof openScaleOut>>, runId: string): Promise<number[]> {
  const reports = await world.reports(runId);
  return reports.flatMap((r) => {
    const agent = takenAgent(r);
    return agent && isProcessAlive(agent.pid, agent.pidStart) ? [agent.pid] : [];
  });
}

describe('a run on the PostgreSQL store, when machines fail', () => {
  it('retries on the other worker an attempt whose worker was killed with kill -9, once its lease expired; nothing is done twice', async () => {
    // t1's first attempt never does its work: only its retry can.
    const scenario = { name: 'worker-dies', plan: { tasks: [task('t1'), task('t2')] }, rules: [{ match: { stage: 'team-exec', task: 't1', attempt: 1 }, do: { hang: true } }] };
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, scenario));
    const a = world.worker('machine-a', ['--max', '2', '--lease-ttl', '3']);
    const run = world.team(['2:executor', 'add two greetings', '--agent', 'sim']);
    const runId = await until(() => world.runId(), 'the run in the store');
    await until(async () => (await world.events(runId)).some((e) => e.event === 'attempt_taken' && e.task_id === 't1' && e.attempt === 1), 't1 a1 taken by machine a', 30_000);
    a.child.kill('SIGKILL');
    await a.child;
    const b = world.worker('machine-b', ['--max', '2', '--lease-ttl', '3']);
    const ended = await run;
    expect(ended.exitCode, String(ended.stderr)).toBe(0);
    const events = await world.events(runId);
    const finishes = events.filter((e) => e.event === 'task_finished' && e.task_id === 't1').map((e) => e.event === 'task_finished' && [e.attempt, e.status, e.evidence]);
    expect(finishes).toEqual([
      [1, 'failed', expect.stringMatching(/^worker .+ stopped renewing its lease \(expired .+\): that machine is gone or cut off$/)],
      [2, 'completed', expect.any(String)],
    ]);
    // The ledger: t1's work was done once, by its second attempt, on machine b.
    const ledger = world.ledger().filter((l) => l.run === runId && l.task === 't1');
    expect(ledger.map((l) => l.attempt)).toEqual([2]);
    expect(world.outputsOf(b)).toContain('t1');
    expect(world.outputsOf(a)).not.toContain('t1');
  });

  it('finishes the run from another folder with team resume after the orchestrator was killed with kill -9', async () => {
    const scenario = { name: 'writer-dies', plan: { tasks: [task('t1'), task('t2'), task('t3')] }, stages: { 'team-exec': { sleepMs: 1500 } } };
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, scenario));
    world.worker('machine-a', ['--max', '2']);
    world.worker('machine-b', ['--max', '2']);
    const run = world.team(['3:executor', 'add three greetings', '--agent', 'sim']);
    const runId = await until(() => world.runId(), 'the run in the store');
    await until(async () => (await world.events(runId)).some((e) => e.event === 'attempt_taken' && e.task_id.startsWith('t')), 'an exec attempt taken', 30_000);
    run.kill('SIGKILL');
    await run;
    // Another clone of the project: the same config, another folder.
    const other = join(env.project, 'other');
    mkdirSync(join(other, '.team'), { recursive: true });
    writeFileSync(join(other, '.team', 'config.json'), JSON.stringify({ team: { store: world.url }, agents: { sim: { adapter: 'sim', scenario: join(env.project, 'scenario.json'), env: { TEAM_SIM_LEDGER: join(env.project, 'ledger.jsonl') } } } }));
    const resumed = await world.team(['resume', '--run', runId], other);
    expect(resumed.exitCode, String(resumed.stderr)).toBe(0);
    const events = await world.events(runId);
    expect(events.at(-1)?.event).toBe('run_completed');
    // Each attempt started once and ended once; the ledger shows each one's work done once.
    const started = events.filter((e) => e.event === 'task_started').map((e) => `${e.task_id}#${e.attempt}`);
    const finished = events.filter((e) => e.event === 'task_finished').map((e) => `${e.task_id}#${e.attempt}`);
    expect(new Set(started).size).toBe(started.length);
    expect(finished.sort()).toEqual([...started].sort());
    const ledger = world.ledger().filter((l) => l.run === runId).map((l) => `${l.task}#${l.attempt}`);
    expect(new Set(ledger).size).toBe(ledger.length);
    expect(ledger.filter((k) => k.startsWith('t')).sort()).toEqual(['t1#1', 't2#1', 't3#1']);
  });

  it('stops both workers\' agents with team cancel from a third folder, and leaves no agent running', async () => {
    const scenario = { name: 'cancelled', plan: { tasks: [task('t1'), task('t2')] }, stages: { 'team-exec': { hang: true } } };
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, scenario));
    const a = world.worker('machine-a');
    const b = world.worker('machine-b');
    const run = world.team(['2:executor', 'add two greetings', '--agent', 'sim']);
    const runId = await until(() => world.runId(), 'the run in the store');
    const takers = await until(async () => {
      const taken = (await world.events(runId)).filter((e) => e.event === 'attempt_taken' && e.task_id.startsWith('t'));
      return taken.length === 2 && taken;
    }, 'both exec attempts taken', 30_000);
    // One attempt on each machine (each takes one at a time).
    expect(new Set(takers.map((e) => e.event === 'attempt_taken' && e.worker_id)).size).toBe(2);
    const third = join(env.project, 'third');
    mkdirSync(third);
    const cancelled = await world.team(['cancel', '--store', world.url, '--run', runId], third);
    expect(cancelled.exitCode, String(cancelled.stderr)).toBe(0);
    expect(String(cancelled.stderr)).toContain(`run ${runId} cancelled`);
    expect((await run).exitCode).toBe(3);
    const events = await world.events(runId);
    expect(events.at(-1)?.event).toBe('run_cancelled');
    expect(events.filter((e) => e.event === 'task_finished' && e.task_id.startsWith('t')).map((e) => e.event === 'task_finished' && e.status)).toEqual(['interrupted', 'interrupted']);
    expect(await liveAgents(world, runId)).toEqual([]);
    // The workers go on: a cancel of one run is not the end of a worker.
    expect(a.child.exitCode).toBeNull();
    expect(b.child.exitCode).toBeNull();
  });
  it('stops on its worker an attempt that runs past the attempt cap, and the attempt fails with the cap as its evidence', async () => {
    const scenario = { name: 'capped', plan: { tasks: [task('t1')] }, stages: { 'team-exec': { hang: true } } };
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, scenario, { attemptTimeoutMsPerStage: { 'team-exec': 2000 }, maxTaskAttempts: 1 }));
    world.worker('machine-a');
    // No fix loop: the failed task fails the run.
    const run = await world.team(['1:executor', 'add a greeting', '--agent', 'sim', '--max-fix-loops', '0']);
    expect(run.exitCode).toBe(1);
    const runId = (await world.runId())!;
    const t1 = (await world.events(runId)).filter((e) => e.event === 'task_finished' && e.task_id === 't1');
    expect(t1.map((e) => e.event === 'task_finished' && [e.status, e.evidence])).toEqual([['failed', expect.stringMatching(/^attempt cap: ran \d+s, over the 2s allowed for team-exec \(team\.attemptTimeoutMs\); killed$/)]]);
    expect(await liveAgents(world, runId)).toEqual([]);
  });
  it('marks stalled an attempt silent on its worker for watchdog.statusCheckMs, stops it past watchdog.reassignMs, and the attempt fails with the watchdog as its evidence', async () => {
    const scenario = { name: 'silent', plan: { tasks: [task('t1')] }, stages: { 'team-exec': { hang: true } } };
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, scenario, { maxTaskAttempts: 1 }));
    writeFileSync(join(world.writer, '.team', 'config.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(world.writer, '.team', 'config.json'), 'utf8')), watchdog: { statusCheckMs: 2000, reassignMs: 6000 } }));
    // The planner's attempt is watched too: its silence is its start-up alone (it prints at once, then
    // ends), which a loaded machine makes seconds long; the limits leave it room, the hang none.
    world.worker('machine-a');
    const run = await world.team(['1:executor', 'add a greeting', '--agent', 'sim', '--max-fix-loops', '0']);
    expect(run.exitCode).toBe(1);
    const runId = (await world.runId())!;
    const t1 = (await world.events(runId)).filter((e) => e.event === 'task_finished' && e.task_id === 't1');
    expect(t1.map((e) => e.event === 'task_finished' && e.status)).toEqual(['failed']);
    expect(t1[0]!.event === 'task_finished' && t1[0]!.evidence).toMatch(/^watchdog: no progress for \d+s \(reassign after 6s\); killed$/);
    // Marked stalled first, at watchdog.statusCheckMs of silence, from the worker's report: once.
    const events = await world.events(runId);
    // (The planner's or the verifier's start-up may be marked stalled too on a loaded machine: a mark, no kill.)
    const isT1Stall = (e: (typeof events)[number]) => e.event === 'attempt_stalled' && e.task_id === 't1';
    const stalled = events.filter(isT1Stall);
    expect(stalled).toMatchObject([{ task_id: 't1', attempt: 1 }]);
    expect(stalled[0]!.event === 'attempt_stalled' && stalled[0]!.silent_ms).toBeGreaterThanOrEqual(2000);
    expect(events.findIndex(isT1Stall)).toBeLessThan(events.findIndex((e) => e.event === 'task_finished' && e.task_id === 't1'));
    expect(await liveAgents(world, runId)).toEqual([]);
  });

  it("leaves out a worker's report that is not one of its attempt's events (a task's end, another attempt's, a negative cost), says so once, and takes the next good one", async () => {
    const scenario = { name: 'forged', plan: { tasks: [task('t1')] }, stages: { 'team-exec': { hang: true } } };
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, scenario, { maxTaskAttempts: 1 }));
    world.worker('machine-a');
    const run = world.team(['1:executor', 'add a greeting', '--agent', 'sim']);
    const runId = await until(async () => (await world.runId()) ?? false, 'the run');
    const taken = await until(async () => (await world.reports(runId)).find((r) => r.taskId === 't1' && reportName(r) === 'attempt_taken') ?? false, "t1's attempt taken");
    // Written as the lease's holder would (anyone who can write the database can).
    const ref = { runId, taskId: 't1', attempt: 1 };
    const forge = (body: object) => writeReport(world.store, ref, taken.workerId, 'event', body);
    expect(await forge({ event: 'task_finished', task_id: 't1', attempt: 1, stage: 'team-exec', agent: 'sim', status: 'completed', session: '', parent_session: '', inputs: [], artifacts: [], evidence: 'forged', next: '' })).toBe(true);
    expect(await forge({ event: 'attempt_stalled', task_id: 't1', attempt: 2, silent_ms: 1 })).toBe(true);
    expect(await forge({ event: 'attempt_spend', task_id: 't1', attempt: 1, stage: 'team-exec', agent: 'sim', cost_usd: -100 })).toBe(true);
    expect(await forge({ event: 'attempt_stalled', task_id: 't1', attempt: 1, silent_ms: 4242 })).toBe(true);
    const isGood = (e: { event: string }) => e.event === 'attempt_stalled' && (e as { silent_ms?: number }).silent_ms === 4242;
    await until(async () => (await world.events(runId)).some(isGood), 'the good report folded');
    expect((await world.team(['cancel'])).exitCode).toBe(0);
    expect((await run).exitCode).toBe(3);
    const events = await world.events(runId);
    expect(events.filter((e) => e.event === 'task_finished' && e.task_id === 't1').map((e) => e.event === 'task_finished' && [e.status, e.evidence])).not.toContainEqual(['completed', 'forged']);
    expect(events.filter((e) => e.event === 'attempt_stalled').map((e) => e.event === 'attempt_stalled' && [e.task_id, e.attempt, e.silent_ms])).toEqual([['t1', 1, 4242]]);
    expect(events.filter((e) => e.event === 'attempt_spend')).toEqual([]);
    const log = readFileSync(join(world.writer, '.team', 'store-runs', runId, 'log.jsonl'), 'utf8');
    expect(log.split('\n').filter((line) => line.includes("a worker's report is not an event of its attempt"))).toHaveLength(1);
  });

  it('stops on its worker, at once, a CLI whose output shows a failure no retry can fix, and the run fails with no second attempt', async () => {
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, { name: 'unused' }, {}, { adapter: 'claude', command: join(STUB_BIN, 'claude'), env: { STUB_MODE: 'auth-retry' } }));
    world.worker('machine-a');
    const started = Date.now();
    const run = await world.team(['1:executor', 'add a greeting', '--agent', 'sim']);
    expect(run.exitCode, String(run.stderr)).toBe(1);
    // claude retries a refused key for minutes; the worker read the first retry and stopped it.
    expect(Date.now() - started).toBeLessThan(60_000);
    const runId = (await world.runId())!;
    const finished = (await world.events(runId)).filter((e) => e.event === 'task_finished');
    expect(finished.map((e) => e.event === 'task_finished' && [e.task_id, e.attempt, e.status, e.retryable])).toEqual([['plan', 1, 'failed', false]]);
    expect(finished[0]!.event === 'task_finished' && finished[0]!.evidence).toContain('claude: the API key was refused');
    expect(await liveAgents(world, runId)).toEqual([]);
  });

  it('tells a rate limit its CLI retries itself on the worker, live and in the log once an episode, and the run goes on to complete', async () => {
    // The stub claude retries a 429 once (an api_retry record), waits as claude does, then answers.
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, { name: 'unused' }, { maxTaskAttempts: 1 }, { adapter: 'claude', command: join(STUB_BIN, 'claude'), env: { STUB_MODE: 'rate-retry' } }));
    world.worker('machine-a');
    const run = await world.team(['1:executor', 'add a greeting', '--agent', 'sim']);
    expect(run.exitCode, String(run.stderr)).toBe(0);
    const runId = (await world.runId())!;
    const events = await world.events(runId);
    const started = events.flatMap((e) => (e.event === 'task_started' ? [`${e.task_id}#${e.attempt}`] : []));
    const retrying = events.flatMap((e) => (e.event === 'attempt_retrying' ? [e] : []));
    // Every attempt's CLI retried once: one record each, made from its worker's report.
    expect(retrying.map((e) => `${e.task_id}#${e.attempt}`).sort()).toEqual([...started].sort());
    for (const e of retrying) {
      expect([e.agent, e.reason, e.retry, e.of, e.retry_after_ms]).toEqual(['sim', 'API error 429 (rate_limit)', 1, 10, 1500]);
      expect(e.report).toBeGreaterThan(0);
    }
    expect(String(run.stderr)).toMatch(/^⟳ lead: sim is retrying a rate limit, 1 of 10 \(plan a1: API error 429 \(rate_limit\), next in 2 s\)$/m);
    expect(String(run.stderr)).toMatch(/^⟳ worker-1: sim is retrying a rate limit, 1 of 10 \(t1 a1: API error 429 \(rate_limit\), next in 2 s\)$/m);
    expect(events.at(-1)?.event).toBe('run_completed');
  });

  it('marks stalled and stops on its worker a CLI that only prints reconnect notices: they are not progress there either', async () => {
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, { name: 'unused' }, { maxTaskAttempts: 1 }, { adapter: 'codex', command: join(STUB_BIN, 'codex'), env: { STUB_MODE: 'reconnect' } }));
    writeFileSync(join(world.writer, '.team', 'config.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(world.writer, '.team', 'config.json'), 'utf8')), watchdog: { statusCheckMs: 1000, reassignMs: 2500 } }));
    world.worker('machine-a');
    const run = await world.team(['1:executor', 'add a greeting', '--agent', 'sim']);
    expect(run.exitCode, String(run.stderr)).toBe(1);
    const runId = (await world.runId())!;
    const events = await world.events(runId);
    expect(events.filter((e) => e.event === 'attempt_stalled').map((e) => e.event === 'attempt_stalled' && [e.task_id, e.attempt])).toEqual([['plan', 1]]);
    const finished = events.filter((e) => e.event === 'task_finished');
    expect(finished.map((e) => e.event === 'task_finished' && [e.task_id, e.status])).toEqual([['plan', 'failed']]);
    expect(finished[0]!.event === 'task_finished' && finished[0]!.evidence).toMatch(/^watchdog: no progress for \d+s \(reassign after 3s\); killed$/);
    expect(await liveAgents(world, runId)).toEqual([]);
  });
});

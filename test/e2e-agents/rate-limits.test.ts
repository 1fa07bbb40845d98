// Rate limits and a budget end to end (issue 29): the built `team` with a tiny claude-like agent
// (test/fixtures/agents/rate-limited-claude.js, read by the claude adapter) against a model server
// of the test's own that admits a few turns at once and answers 429 beyond; a git repository and
// several workers with their worktrees, as a user has them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitAsRepo, GIT_ENV } from '../helpers/git-project.js';
import { eventsOf, makeAgentProject, removeAgentProjects, type AgentProject } from '../helpers/agent-project.js';
import { waitForEvent } from '../helpers/wait-event.js';
import { startRateServer, type RateServer } from '../../bench/parts/rate-server.js';
import { ROOT } from '../helpers/team.js';

const AGENT = join(ROOT, 'test/fixtures/agents/rate-limited-claude.js');
const servers: RateServer[] = [];

afterEach(async () => {
  await removeAgentProjects();
  for (const server of servers.splice(0)) await server.close();
});

// A git project whose every role runs the fixture agent against `server`.
function makeProject(server: RateServer, tasks: number, cost: number, team: Record<string, unknown> = {}): AgentProject {
  const project = makeAgentProject({ ...GIT_ENV, RL_URL: server.url, RL_TASKS: String(tasks), RL_COST: String(cost) });
  project.write('README.md', '# rate limits\n');
  project.writeConfig({
    team: { monitorIntervalMs: 200, shutdownTimeoutMs: 1_000, maxTaskAttempts: 1, ...team },
    agents: { rl: { adapter: 'claude', command: AGENT } },
  });
  commitAsRepo(project.dir);
  return project;
}

async function rateServer(capacity: number, holdMs: number, retryAfterS: number, holdUntilRefused?: RegExp): Promise<RateServer> {
  const server = await startRateServer({ capacity, holdMs, retryAfterS, ...(holdUntilRefused && { holdUntilRefused }) });
  servers.push(server);
  return server;
}

describe('rate limits', () => {
  it('completes a fan-out of 20 attempts against a server that admits 4 at once, with no failed task', async () => {
    // The plan's tasks are held until the server refused one: the limit is met on a machine of any speed.
    // (Its time is the bench's to measure, beside the ideal: the cap here only ends a hung run.)
    const server = await rateServer(4, 1_000, 1, /^t\d+$/);
    const project = makeProject(server, 20, 0.01);
    const result = await project.team(['8:executor', 'fan out twenty tasks', '--agent', 'rl']);
    expect(result.exitCode, result.stderr).toBe(0);
    const files = project.readRun();
    const finished = eventsOf(files, 'task_finished').filter((e) => /^(i1-)?t\d+$/.test(e.task_id));
    const completed = new Set(finished.filter((e) => e.status === 'completed').map((e) => e.task_id));
    expect(completed.size).toBe(20);
    // maxTaskAttempts is 1: a rate limit counted as a failure would have failed its task. An attempt
    // a rate limit stopped did not fail: it is interrupted, and says so in one sentence.
    expect(finished.filter((e) => e.status === 'failed')).toEqual([]);
    const limited = finished.filter((e) => e.status === 'interrupted');
    for (const e of limited) expect(e.evidence).toMatch(/^rate limited by rl \(API Error: 429 [^{}]*\); tried again after a back-off$/);
    expect(server.refused).toBeGreaterThan(0);
    expect(server.peak).toBeLessThanOrEqual(4);
    const throttled = eventsOf(files, 'attempt_throttled').filter((e) => /^(i1-)?t\d+$/.test(e.task_id));
    expect(throttled.length).toBe(limited.length);
    expect(limited.length).toBeGreaterThan(0);
    expect(result.stderr).toMatch(new RegExp(`\\d+ tasks, \\d+ attempts \\(${limited.length} rate-limited, 0 failed\\)`));
    expect(throttled[0]).toMatchObject({ agent: 'rl', retry_after_ms: 1000 });
    // Every back-off ended no sooner than its retry-after.
    const ended = eventsOf(files, 'backoff_ended');
    expect(ended.length).toBeGreaterThan(0);
    expect(result.stderr).toContain('rate limited');
  }, 300_000);

  it('rebuilds a back-off from the log after a kill -9 of the orchestrator, and waits out what is left of it', async () => {
    const server = await rateServer(1, 1_500, 3);
    const project = makeProject(server, 2, 0.01);
    const run = project.start(['2:executor', 'two tasks, one lane', '--agent', 'rl']);
    const throttledEvent = await waitForEvent(project, 'attempt_throttled', () => true, { timeoutMs: 30_000 });
    process.kill(run.pid, 'SIGKILL');
    await run.result;
    // The log alone says the agent is held back: its lanes halved, its next try ahead.
    const status = await project.team(['status']);
    expect(status.stdout).toMatch(/throttled: rl 1 of 2 lanes, next try in \d+ s/);
    const resumed = await project.team(['resume']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const files = project.readRun();
    const ended = eventsOf(files, 'backoff_ended').find((e) => e.agent === 'rl')!;
    expect(Date.parse(ended.at) - Date.parse(throttledEvent.at)).toBeGreaterThanOrEqual(3_000);
    // The throttled task started again only after its back-off ended.
    const restarts = eventsOf(files, 'task_started').filter((e) => e.task_id === throttledEvent.task_id && e.attempt > throttledEvent.attempt);
    expect(restarts.length).toBeGreaterThan(0);
    expect(restarts.every((e) => e.file > ended.file)).toBe(true);
    // The attempt the rate limit stopped did not fail: it is interrupted, says so in one sentence,
    // and is counted apart in team status and the report. The kill may come between its
    // attempt_throttled and its end: the resume then concludes it, recovered, as the rate limit's.
    const stopped = eventsOf(files, 'task_finished').find((e) => e.task_id === throttledEvent.task_id && e.attempt === throttledEvent.attempt)!;
    expect(stopped.status).toBe('interrupted');
    expect(stopped.evidence).toMatch(/^(recovered after a restart: )?rate limited by rl \(API Error: 429 [^{}]*\); tried again after a back-off$/);
    expect(eventsOf(files, 'attempt_throttled').filter((e) => e.task_id === throttledEvent.task_id && e.attempt === throttledEvent.attempt)).toHaveLength(1);
    const limited = eventsOf(files, 'task_finished').filter((e) => e.status === 'interrupted').length;
    const counts = `(${limited} rate-limited, 0 failed)`;
    const after = await project.team(['status']);
    expect(after.stdout).toContain(counts);
    expect(after.stdout).toContain(`a${throttledEvent.attempt} rate-limited · `);
    const report = join(project.dir, 'report.html');
    expect((await project.team(['report', '--out', report])).exitCode).toBe(0);
    expect(readFileSync(report, 'utf8')).toContain(counts);
    expect(eventsOf(files, 'run_resumed')).toHaveLength(1);
  }, 90_000);
});

describe('budget', () => {
  it('stops mid-exec within one attempt of the budget with exit 4, then goes on to the end when resume raises it', async () => {
    const server = await rateServer(20, 600, 1);
    const project = makeProject(server, 6, 0.1);
    const first = await project.team(['2:executor', 'six tasks on a small budget', '--agent', 'rl', '--budget-usd', '0.35']);
    expect(first.exitCode, first.stderr).toBe(4);
    expect(first.stderr).toMatch(/budget spent: \$0\.\d\d of \$0\.35/);
    const files = project.readRun();
    const exceeded = eventsOf(files, 'budget_exceeded')[0]!;
    expect(exceeded.spent_usd).toBeGreaterThanOrEqual(0.35);
    expect(exceeded.spent_usd).toBeLessThanOrEqual(0.35 + 0.1 + 1e-9);
    const keptBefore = eventsOf(files, 'task_finished').filter((e) => e.status === 'completed' && /t\d+$/.test(e.task_id)).map((e) => e.task_id);
    expect(keptBefore.length).toBeGreaterThan(0);
    expect(keptBefore.length).toBeLessThan(6);
    const status = await project.team(['status']);
    expect(status.stdout).toMatch(/budget: \$0\.\d\d of \$0\.35/);
    const refused = await project.team(['resume', '--budget-usd', '0.2']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--budget-usd 0.2 is not above what the run spent');
    const second = await project.team(['resume', '--budget-usd', '5']);
    expect(second.exitCode, second.stderr).toBe(0);
    const after = project.readRun();
    // Every completed attempt was kept: none of those tasks started again.
    for (const id of keptBefore) expect(eventsOf(after, 'task_started').filter((e) => e.task_id === id)).toHaveLength(1);
    expect(new Set(eventsOf(after, 'task_finished').filter((e) => e.status === 'completed' && /t\d+$/.test(e.task_id)).map((e) => e.task_id)).size).toBe(6);
    expect(eventsOf(after, 'budget_raised')).toEqual([expect.objectContaining({ usd: 5 })]);
    // The report shows the spend against the raised budget.
    const report = await project.team(['report']);
    expect(report.exitCode, report.stderr).toBe(0);
    expect(readFileSync(report.stdout.trim().split('\n').at(-1)!.trim(), 'utf8')).toMatch(/budget: \$0\.\d\d of \$5\.00/);
  }, 90_000);
});

describe('spend counted live', () => {
  it('stops a planner mid-attempt once the spend its CLI streams passes the budget, exit 4', async () => {
    const project = makeAgentProject({ ...GIT_ENV });
    project.writeConfig({ team: { shutdownTimeoutMs: 500 }, agents: { oc: { adapter: 'opencode', command: join(ROOT, 'test/fixtures/agents/costly-opencode.js') } } });
    const result = await project.team(['2:executor', 'a planner that spends as it goes', '--agent', 'oc', '--budget-usd', '0.3']);
    expect(result.exitCode, result.stderr).toBe(4);
    expect(result.stderr).toContain('budget spent: $0.50 of $0.30');
    const files = project.readRun();
    expect(eventsOf(files, 'budget_exceeded')).toEqual([expect.objectContaining({ spent_usd: 0.5, stop_running: true })]);
    expect(eventsOf(files, 'task_finished').map((e) => [e.task_id, e.status])).toEqual([['plan', 'interrupted']]);
    expect(eventsOf(files, 'run_stopped')[0]!.reason).toMatch(/^budget spent: \$0\.50 of \$0\.30; `team resume --budget-usd X`/);
  }, 60_000);
});

describe('the cap of one attempt', () => {
  it('stops an attempt whose CLI has no cap of its own once its reported cost passes agents.<name>.maxBudgetUsd', async () => {
    const project = makeAgentProject({ ...GIT_ENV });
    project.writeConfig({ team: { maxTaskAttempts: 1, shutdownTimeoutMs: 500 }, agents: { oc: { adapter: 'opencode', command: join(ROOT, 'test/fixtures/agents/costly-opencode.js'), maxBudgetUsd: 0.2 } } });
    const result = await project.team(['1:executor', 'one costly attempt', '--agent', 'oc']);
    expect(result.exitCode, result.stderr).toBe(1);
    const files = project.readRun();
    expect(eventsOf(files, 'attempt_spend')[0]).toMatchObject({ task_id: 'plan', attempt: 1, cost_usd: 0.5 });
    expect(eventsOf(files, 'attempt_stopping').map((e) => e.reason)).toEqual(['attempt cap: spent $0.5000, over agents.oc.maxBudgetUsd ($0.2); stopped']);
    expect(eventsOf(files, 'task_finished').map((e) => [e.task_id, e.status])).toEqual([['plan', 'failed']]);
  }, 60_000);
});

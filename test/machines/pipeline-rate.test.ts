// The pipeline machine under rate limits and a budget (issue 29): pure transitions, replayed from the log.
import { describe, expect, it } from 'vitest';
import { replayRun } from '../../src/session/replay.js';
import { backoffMs, laneFree } from '../../machines/throttle.js';
import { isBudgetStopped } from '../../machines/budget-steps.js';
import { Driver, LIMITS, makeInput } from './drive.js';
import { independent, toExec } from './routes.js';

const T0 = Date.parse('2026-12-02T09:00:00Z');

// A rate limit of the task's current attempt, then its end as a failure.
function throttle(d: Driver, id: string, at: number, retryAfterMs?: number): Driver {
  const attempt = d.context.tasks[id]!.attempt;
  d.send({ type: 'attempt.throttled', task_id: id, attempt, agent: 'sim', reason: 'HTTP 429', jitter: 0, at, ...(retryAfterMs !== undefined && { retry_after_ms: retryAfterMs }) });
  return d.finishTask(id, 'failed');
}

describe('pipeline machine: rate limits', () => {
  it('retries a rate-limited task after the back-off without counting a failure against it or its worker', () => {
    const d = toExec(new Driver(makeInput({ workers: 4 })), independent(4));
    expect(d.running()).toHaveLength(4);
    throttle(d, 't1', T0, 3_000);
    expect(d.context.tasks.t1).toMatchObject({ status: 'pending', attempt: 1, failures: 0 });
    expect(d.context.workerFailures).toEqual({});
    expect(d.context.throttle!.sim).toMatchObject({ lanes: 2, waiting: true, until: T0 + 3_000, streak: 1 });
    // Nothing starts during the back-off, even as other attempts end.
    d.finishTask('t2');
    expect(d.context.tasks.t1!.status).toBe('pending');
    d.send({ type: 'backoff.ended', agent: 'sim' });
    expect(d.context.tasks.t1).toMatchObject({ status: 'running', attempt: 2, failures: 0 });
    d.runExec();
    expect(d.snapshot.value).toEqual({ exec: 'handoff' });
  });

  it('halves the lanes on a rate limit and adds one back per completed attempt, up to one per worker', () => {
    const d = toExec(new Driver(makeInput({ workers: 8 })), independent(16));
    expect(d.running()).toHaveLength(8);
    throttle(d, 't1', T0);
    expect(d.context.throttle!.sim!.lanes).toBe(4);
    d.send({ type: 'backoff.ended', agent: 'sim' });
    // 7 still run on 4 lanes: nothing starts until fewer than 4 run.
    expect(d.running()).toHaveLength(7);
    for (const id of d.running().slice(0, 3)) d.finishTask(id);
    // Each success raised the lanes by one (4 → 7): 4 ran, 3 ended, now up to 7 run.
    expect(d.context.throttle!.sim!.lanes).toBe(7);
    expect(d.running()).toHaveLength(7);
    d.runExec();
    expect(d.context.throttle!.sim!.lanes).toBe(8);
    expect(d.maxRunning).toBe(8);
  });

  it("slows the agent's other attempts while a CLI retries a rate limit itself, the retrying attempt going on and its streak uncounted", () => {
    const d = toExec(new Driver(makeInput({ workers: 4 })), independent(8));
    expect(d.running()).toHaveLength(4);
    d.send({ type: 'attempt.retrying', agent: 'sim', jitter: 0, at: T0, retry_after_ms: 5_000 });
    expect(d.context.throttle!.sim).toMatchObject({ lanes: 2, waiting: true, until: T0 + 5_000, streak: 0 });
    // The retrying attempt and the others go on; none starts while the back-off lasts.
    expect(d.context.tasks.t1).toMatchObject({ status: 'running', attempt: 1 });
    d.finishTask('t1');
    d.finishTask('t2');
    expect(d.running()).toHaveLength(2);
    d.send({ type: 'backoff.ended', agent: 'sim' });
    // Two completed attempts gave a lane back each: 2 → 4.
    expect(d.running()).toHaveLength(4);
    expect(d.context.tasks.t1).toMatchObject({ status: 'completed', failures: 0 });
  });

  it('never halves below one lane', () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), independent(2));
    throttle(d, 't1', T0);
    d.send({ type: 'backoff.ended', agent: 'sim' });
    throttle(d, 't2', T0 + 1_000);
    expect(d.context.throttle!.sim!.lanes).toBe(1);
    d.send({ type: 'backoff.ended', agent: 'sim' });
    expect(laneFree(d.context, 'sim', 0)).toBe(true);
    expect(d.running()).toHaveLength(1);
  });

  it('fails the run when the rate limit lasts past rateLimitGiveUpMs, and says so', () => {
    const d = toExec(new Driver(makeInput({ workers: 1, limits: { ...LIMITS, rateLimitGiveUpMs: 60_000 } })), independent(1));
    throttle(d, 't1', T0);
    d.send({ type: 'backoff.ended', agent: 'sim' });
    throttle(d, 't1', T0 + 30_000);
    d.send({ type: 'backoff.ended', agent: 'sim' });
    const attempt = d.context.tasks.t1!.attempt;
    d.send({ type: 'attempt.throttled', task_id: 't1', attempt, agent: 'sim', reason: 'HTTP 429 Too Many Requests', jitter: 0, at: T0 + 61_000 });
    d.finishTask('t1', 'failed');
    expect(d.snapshot.value).toBe('failing');
    expect(d.context.reason).toBe('rate limited: sim was still refused after 1.0 min (3 rate limits in a row; team.rateLimitGiveUpMs is 60000 ms): HTTP 429 Too Many Requests');
  });

  it('holds the planner through a back-off and starts its next attempt with its failures unchanged', () => {
    const d = new Driver(makeInput());
    d.send({ type: 'attempt.throttled', task_id: 'plan', attempt: 1, agent: 'sim', reason: '529 overloaded', jitter: 0.5, at: T0 });
    d.finishStage('failed');
    expect(d.context.stageAttempt).toMatchObject({ attempt: 1, status: 'pending', failures: 0 });
    d.send({ type: 'backoff.ended', agent: 'sim' });
    expect(d.context.stageAttempt).toMatchObject({ attempt: 2, status: 'running', failures: 0 });
  });

  it('waits at least the retry-after, and doubles the step with each rate limit in a row', () => {
    expect(backoffMs(1, 1)).toBe(1_000);
    expect(backoffMs(1, 0)).toBe(500);
    expect(backoffMs(3, 1)).toBe(4_000);
    expect(backoffMs(1, 1, 40_000)).toBe(40_000);
    expect(backoffMs(30, 1)).toBe(120_000);
  });

  it('rebuilds lanes and a back-off in progress from the log alone', () => {
    const d = toExec(new Driver(makeInput({ workers: 4 })), independent(6));
    throttle(d, 't1', T0, 5_000);
    d.finishTask('t2');
    const replay = replayRun(d.log);
    expect(replay.pending).toEqual([]);
    expect(replay.snapshot.context.throttle).toEqual(d.context.throttle);
    expect(replay.snapshot.context.throttle!.sim).toMatchObject({ waiting: true, until: T0 + 5_000 });
  });
});

describe('pipeline machine: budget', () => {
  it('stops the running attempts when the budget is spent, then stops the run for a decision with the reason', () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), independent(4));
    d.finishTask('t1');
    const stopsBefore = d.stopped.length;
    d.send({ type: 'budget.exceeded', reason: 'budget spent: $1.02 of $1.00', stop_running: true });
    expect(d.stopped.slice(stopsBefore)).toHaveLength(2);
    for (const id of d.running()) d.finishTask(id, 'interrupted');
    expect(d.snapshot.value).toBe('stopped');
    expect(d.recorded('run_stopped').at(-1)!.reason).toBe('budget spent: $1.02 of $1.00; `team resume --budget-usd X` (or --budget-tokens N) raises it and goes on');
    expect(d.recorded('task_started').map((r) => r.task_id)).toEqual(['plan', 't1', 't2', 't3']);
  });

  it('lets running attempts finish with onExceed finish, starting nothing new', () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), independent(4));
    d.send({ type: 'budget.exceeded', reason: 'budget spent: 500 of 400 tokens', stop_running: false });
    expect(d.stopped.filter((id) => id.startsWith('attempt:t'))).toEqual([]);
    d.finishTask('t1').finishTask('t2');
    expect(d.snapshot.value).toBe('stopped');
    expect(d.context.tasks.t3!.status).toBe('pending');
  });

  it('goes on when the budget is raised: the stopped attempts run again, completed ones are kept', () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), independent(3));
    d.finishTask('t1');
    d.send({ type: 'budget.exceeded', reason: 'budget spent: $1.02 of $1.00', stop_running: true });
    for (const id of d.running()) d.finishTask(id, 'interrupted');
    d.send({ type: 'run.resumed', retry_interrupted: false }).send({ type: 'budget.raised' });
    expect(d.snapshot.value).toEqual({ exec: 'working' });
    expect(d.context.tasks.t1).toMatchObject({ status: 'completed', attempt: 1 });
    d.runExec();
    expect(d.snapshot.value).toEqual({ exec: 'handoff' });
    expect(replayRun(d.log).pending).toEqual([]);
  });

  it('stops the planner when the budget is spent, holds it, and starts its next attempt once the budget is raised', () => {
    const d = new Driver(makeInput());
    d.send({ type: 'budget.exceeded', reason: 'budget spent: 410 of 400 tokens', stop_running: true });
    expect(d.stopped).toContain('attempt:plan:a1');
    d.finishStage('interrupted');
    expect(d.context.stageAttempt).toMatchObject({ attempt: 1, status: 'pending', failures: 0 });
    expect(isBudgetStopped(d.context)).toBe(true);
    expect(d.recorded('run_stopped').at(-1)!.reason).toContain('budget spent: 410 of 400 tokens');
    d.send({ type: 'run.resumed', retry_interrupted: false }).send({ type: 'budget.raised' });
    expect(d.context.stageAttempt).toMatchObject({ attempt: 2, status: 'running', failures: 0 });
    expect(isBudgetStopped(d.context)).toBe(false);
    expect(replayRun(d.log).pending).toEqual([]);
  });
});

describe('pipeline machine: a spent quota', () => {
  it("starts nothing once an agent's quota is spent, lets running attempts end, stops for a decision naming the reset, and tries the stopped attempt again once told it is back", () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), independent(4));
    d.send({ type: 'quota.reached', agent: 'sim', reason: 'claude: quota or billing limit reached', resets: '3pm' });
    expect(d.stopped.filter((id) => id.startsWith('attempt:t'))).toEqual([]);
    d.finishTask('t1', 'interrupted').finishTask('t2');
    expect(d.snapshot.value).toBe('stopped');
    expect(d.context.tasks.t3!.status).toBe('pending');
    expect(d.recorded('run_stopped').at(-1)!.reason).toBe("sim's quota is spent (resets 3pm): claude: quota or billing limit reached; `team resume` once it is back goes on");
    d.send({ type: 'run.resumed', retry_interrupted: false }).send({ type: 'quota.cleared' });
    expect(d.snapshot.value).toEqual({ exec: 'working' });
    expect(d.context.tasks.t1).toMatchObject({ status: 'running', attempt: 2 });
    d.runExec();
    expect(d.snapshot.value).toEqual({ exec: 'handoff' });
    expect(replayRun(d.log).pending).toEqual([]);
  });

  it('holds the planner at a spent quota and starts its next attempt once told it is back', () => {
    const d = new Driver(makeInput());
    d.send({ type: 'quota.reached', agent: 'sim', reason: 'codex: quota or billing limit reached' });
    d.finishStage('interrupted');
    expect(isBudgetStopped(d.context)).toBe(true);
    expect(d.recorded('run_stopped').at(-1)!.reason).toBe("sim's quota is spent: codex: quota or billing limit reached; `team resume` once it is back goes on");
    d.send({ type: 'run.resumed', retry_interrupted: false }).send({ type: 'quota.cleared' });
    expect(d.context.stageAttempt).toMatchObject({ attempt: 2, status: 'running', failures: 0 });
  });
});

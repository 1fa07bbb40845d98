// What a worker says of itself (its id, its host, its session id) reaches the log checked like an
// agent's text: the store's rows could have been written by anyone who can write the database.
import { describe, expect, it } from 'vitest';
import { retryOf, silentMsOf, workerEvent } from '../../src/remote/worker-news.js';
import { workerWord } from '../../src/domain/worker-word.js';

describe('runtime/worker-news workerWord', () => {
  it('keeps a plain worker id or host as it is', () => {
    expect(workerWord('ci-runner-7-4242-Ab3dE9', 'a worker')).toBe('ci-runner-7-4242-Ab3dE9');
  });

  it('redacts what looks like a secret, and says so', () => {
    const word = workerWord('host sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789', 'another machine');
    expect(word).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789');
    expect(word).toContain('[teamline redacted what looked like secrets');
  });

  it('turns control characters into spaces and cuts a long word to its bound', () => {
    expect(workerWord('a\nb\u0007c', 'x')).toBe('a b c');
    const long = workerWord('h'.repeat(5_000), 'x');
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });

  it('gives the fallback for a missing or non-text value', () => {
    expect(workerWord(undefined, 'another machine')).toBe('another machine');
    expect(workerWord(42, 'a worker')).toBe('a worker');
    expect(workerWord('', 'a worker')).toBe('a worker');
  });
});

// A worker's report as the store holds it: of t1's attempt 2.
const report = (body: unknown) => ({ taskId: 't1', attempt: 2, body: body as Record<string, unknown> });
const ref = { task_id: 't1', attempt: 2 };

describe('runtime/worker-news workerEvent', () => {
  it("reads a worker's event of the attempt it holds with the log's own schema", () => {
    const stalled = { event: 'attempt_stalled', ...ref, silent_ms: 5_000 };
    expect(workerEvent(report(stalled))).toEqual(stalled);
    const spend = { event: 'attempt_spend', ...ref, stage: 'team-exec', agent: 'claude', cost_usd: 0.5, tokens: { input: 10, output: 2 } };
    // The spend's number (which makes a report sent again one report) and any report seq are not the event's.
    expect(workerEvent(report({ ...spend, n: 3, report: 99 }))).toEqual(spend);
  });

  it('refuses an event of another attempt, one a worker may not post, and one the schema refuses', () => {
    expect(workerEvent(report({ event: 'attempt_stalled', task_id: 't2', attempt: 2, silent_ms: 5 }))).toBeUndefined();
    expect(workerEvent(report({ event: 'attempt_stalled', task_id: 't1', attempt: 1, silent_ms: 5 }))).toBeUndefined();
    // The end of a task is the writer's to record, from the finished report.
    expect(workerEvent(report({ event: 'task_finished', ...ref, stage: 'team-exec', agent: 'x', status: 'completed' }))).toBeUndefined();
    // A negative cost would shrink what the run spent.
    expect(workerEvent(report({ event: 'attempt_spend', ...ref, stage: 'team-exec', agent: 'claude', cost_usd: -1 }))).toBeUndefined();
    for (const body of [null, 'text', 42, {}, { event: 'gossip' }, { event: 'attempt_taken', ...ref }]) expect(workerEvent(report(body))).toBeUndefined();
  });
});

describe('runtime/worker-news silentMsOf', () => {
  it("takes a stalled event's silence as whole ms, bounded", () => {
    const stalled = (silent: number) => ({ event: 'attempt_stalled' as const, ...ref, silent_ms: silent });
    expect(silentMsOf(stalled(5_000.4))).toBe(5_000);
    expect(silentMsOf(stalled(1e300))).toBe(365 * 24 * 3600 * 1000);
    expect(silentMsOf(stalled(-1))).toBe(0);
  });
});

describe('runtime/worker-news retryOf', () => {
  const retrying = (fields: object) => workerEvent(report({ event: 'attempt_retrying', ...ref, agent: 'claude', jitter: 0.5, ...fields }));

  it("reads a retrying event's notice as the worker sent it", () => {
    const event = retrying({ reason: 'API error 429 (rate_limit)', retry: 3, of: 10, retry_after_ms: 4210 });
    expect(event?.event === 'attempt_retrying' && retryOf(event)).toEqual({ reason: 'API error 429 (rate_limit)', n: 3, max: 10, delayMs: 4210 });
  });

  it("checks a hostile event like an agent's text: control characters, secrets, counts past their bounds", () => {
    const event = retrying({ reason: 'limit\u001b[2J sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789', retry: 1e9, of: 1e9, retry_after_ms: 1e15 });
    expect(event?.event).toBe('attempt_retrying');
    const retry = event?.event === 'attempt_retrying' ? retryOf(event) : undefined;
    expect(retry?.reason).not.toContain('\u001b');
    expect(retry?.reason).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789');
    expect(retry).not.toHaveProperty('n');
    expect(retry).not.toHaveProperty('max');
    expect(retry).not.toHaveProperty('delayMs');
    // Counts that are not whole, or negative, are no event at all.
    expect(retrying({ reason: 'x', retry: -1 })).toBeUndefined();
    expect(retrying({ reason: 'x', of: 1.5 })).toBeUndefined();
  });
});

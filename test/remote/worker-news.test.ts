// What a worker says of itself (its id, its host, its session id) reaches the log checked like an
// agent's text: the store's rows could have been written by anyone who can write the database.
import { describe, expect, it } from 'vitest';
import { retryOf, silentMsOf } from '../../src/remote/worker-news.js';
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

describe('runtime/worker-news silentMsOf', () => {
  it('takes a stalled report\'s silence as whole ms, bounded, and 0 for what is not a number of ms', () => {
    expect(silentMsOf({ silent_ms: 5_000.4 })).toBe(5_000);
    expect(silentMsOf({ silent_ms: 1e300 })).toBe(365 * 24 * 3600 * 1000);
    for (const body of [{ silent_ms: -1 }, { silent_ms: '5000' }, { silent_ms: Number.NaN }, {}, null, 'text']) expect(silentMsOf(body)).toBe(0);
  });
});

describe('runtime/worker-news retryOf', () => {
  it("reads a retrying report's notice as the worker sent it", () => {
    expect(retryOf({ reason: 'API error 429 (rate_limit)', n: 3, max: 10, delay_ms: 4210 })).toEqual({ reason: 'API error 429 (rate_limit)', n: 3, max: 10, delayMs: 4210 });
  });

  it("checks a hostile body like an agent's text: control characters, secrets, counts that are not whole or bounded", () => {
    const retry = retryOf({ reason: 'limit\u001b[2J sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789', n: -1, max: 1.5, delay_ms: 1e300 });
    expect(retry.reason).not.toContain('\u001b');
    expect(retry.reason).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789');
    expect(retry).not.toHaveProperty('n');
    expect(retry).not.toHaveProperty('max');
    expect(retry).not.toHaveProperty('delayMs');
    for (const body of [null, 'text', 42, {}]) expect(retryOf(body)).toEqual({ reason: 'a rate limit' });
  });
});

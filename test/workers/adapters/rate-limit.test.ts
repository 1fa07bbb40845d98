// Rate limits and overloads told apart from other failures (issue 29), and spend read as it streams.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claude } from '../../../workers/adapters/claude.js';
import { codex } from '../../../workers/adapters/codex.js';
import { capAtWord, plainReason, rateLimitOfStatus, readRateLimit, readRetryAfterHeader, readRetryAfterMs } from '../../../workers/adapters/rate-limit.js';
import { ROOT } from '../../helpers/team.js';

const lines = (...records: object[]) => records.map((r) => JSON.stringify(r)).join('\n');

describe('rate limits', () => {
  it('tells a 429 with its retry-after from the words of an API error', () => {
    expect(readRateLimit('Error: 429 Too Many Requests (retry-after: 40)')).toEqual({ reason: 'Error: 429 Too Many Requests (retry-after: 40)', retryAfterMs: 40_000 });
  });

  it('tells a rate limit from an API error\'s status (429, 503, 529), unless its words say a balance is spent', () => {
    expect(rateLimitOfStatus(429, 'APIError 429', 'Rate limit reached', 1_500)).toEqual({ reason: 'APIError 429', retryAfterMs: 1_500 });
    expect(rateLimitOfStatus(503, 'Error 503', 'The model is overloaded. Please try again later.')).toEqual({ reason: 'Error 503' });
    expect(rateLimitOfStatus(429, 'Error 429', 'Resource has been exhausted.\nSuggested retry after 2s.')).toEqual({ reason: 'Error 429', retryAfterMs: 2_000 });
    expect(rateLimitOfStatus(429, 'Error 429', 'You have exhausted your daily quota on this model.')).toBeUndefined();
    expect(rateLimitOfStatus(429, 'Error 429', 'Quota exceeded for metric: generate_content_requests, limit: 0')).toBeUndefined();
    expect(rateLimitOfStatus(429, 'APIError 429', '{"error":{"code":"insufficient_quota"}}')).toBeUndefined();
    expect(rateLimitOfStatus(500, 'Error 500', 'internal')).toBeUndefined();
    expect(rateLimitOfStatus('429', 'Error 429', 'x')).toBeUndefined();
  });

  it('reads the wait of a retry-after-ms or retry-after header (seconds or an HTTP date)', () => {
    expect(readRetryAfterHeader({ 'retry-after': '1', 'retry-after-ms': '200' })).toBe(200);
    expect(readRetryAfterHeader({ 'retry-after': '2.5' })).toBe(2_500);
    const now = Date.parse('Wed, 02 Dec 2026 10:00:00 GMT');
    expect(readRetryAfterHeader({ 'retry-after': 'Wed, 02 Dec 2026 10:00:30 GMT' }, now)).toBe(30_000);
    expect(readRetryAfterHeader({ 'retry-after': 'soon' })).toBeUndefined();
    expect(readRetryAfterHeader(undefined)).toBeUndefined();
  });

  it('tells an overload (529) with no retry-after', () => {
    expect(readRateLimit('API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toMatchObject({ reason: expect.stringContaining('overloaded_error') });
    expect(readRateLimit('API Error: 529 overloaded')!.retryAfterMs).toBeUndefined();
  });

  it('reads the waits the CLIs print in their own units', () => {
    expect(readRetryAfterMs('Rate limit reached. Please try again in 1.5s.')).toBe(1500);
    expect(readRetryAfterMs('"retry_delay_ms": 2500')).toBe(2500);
    expect(readRetryAfterMs('retry-after-ms: 700')).toBe(700);
    expect(readRetryAfterMs('try again in 2 minutes')).toBe(120_000);
  });

  it('keeps a spent balance (quota) apart: no wait brings it back', () => {
    expect(readRateLimit('429 You exceeded your current quota, please check your plan and billing details (insufficient_quota)')).toBeUndefined();
  });

  it('is not fooled by a plain failure', () => {
    expect(readRateLimit('error: tests failed (3 of 12), see output')).toBeUndefined();
    expect(readRateLimit('Error: 401 invalid x-api-key')).toBeUndefined();
  });

  it('reads claude\'s error result with api_error_status 429 and the delay of its last retry notice', () => {
    const report = claude.parse(lines(
      { type: 'system', subtype: 'init', session_id: 's1' },
      { type: 'system', subtype: 'api_retry', attempt: 1, max_retries: 1, retry_delay_ms: 3000, error_status: 429, error: 'rate_limit' },
      { type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: 'API Error: 429 rate_limit_error', session_id: 's1' },
    ));
    expect(report.ok).toBe(false);
    expect(report.failure).toBeUndefined();
    expect(report.rateLimit).toEqual({ reason: 'API Error: 429 rate_limit_error', retryAfterMs: 3000 });
  });

  it('reads claude stopped while it retried an overload (no result record) as a rate limit', () => {
    const report = claude.parse(lines({ type: 'system', subtype: 'api_retry', attempt: 4, max_retries: 10, retry_delay_ms: 8000, error_status: 529, error: 'overloaded' }));
    expect(report.rateLimit).toMatchObject({ retryAfterMs: 8000, reason: expect.stringContaining('529') });
  });

  it('does not take claude\'s spent credit for a rate limit', () => {
    const report = claude.parse(lines({ type: 'result', subtype: 'success', is_error: true, api_error_status: 402, result: 'Credit balance is too low' }));
    expect(report.failure?.kind).toBe('quota');
    expect(report.rateLimit).toBeUndefined();
  });
});

describe('spend so far', () => {
  it('sums claude\'s assistant messages by message id before its result, then takes the result\'s totals', () => {
    const usage = { input_tokens: 100, cache_read_input_tokens: 50, output_tokens: 20 };
    const partial = lines(
      { type: 'assistant', message: { id: 'm1', usage } },
      { type: 'assistant', message: { id: 'm1', usage } },
      { type: 'assistant', message: { id: 'm2', usage } },
    );
    expect(claude.spendSoFar!(partial)).toEqual({ tokens: { input: 300, output: 40, cached: 100 } });
    const whole = `${partial}\n${lines({ type: 'result', subtype: 'success', is_error: false, result: 'ok', total_cost_usd: 0.25, usage })}`;
    expect(claude.spendSoFar!(whole)).toEqual({ costUsd: 0.25, tokens: { input: 150, output: 20, cached: 50 } });
  });

  it('reads codex\'s turn usage from a recorded run as it streams', () => {
    const output = readFileSync(join(ROOT, 'test/fixtures/cli/codex/real-run-t1.txt'), 'utf8');
    expect(codex.spendSoFar!(output)?.tokens?.input).toBeGreaterThan(0);
  });
});

describe('the words of a rate limit', () => {
  // codex's stream as it rides out a 429 window and gives up: error records whose message is the sentence.
  const codexEnd = [
    '{"type":"error","message":"Reconnecting... 3/5 (exceeded retry limit, last status: 429 Too Many Requests)"}',
    '{"type":"error","message":"Reconnecting... 4/5 (exceeded retry limit, last status: 429 Too Many Requests)"}',
    '{"type":"item.completed","item":{"id":"item_3","type":"error","message":"Reconnecting... 5/5 (exceeded retry limit, last status: 429 Too Many Requests)"}}',
    '{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}',
  ].join('\n');

  it('is the last sentence that names the limit, never JSON', () => {
    expect(readRateLimit(codexEnd)).toEqual({ reason: 'exceeded retry limit, last status: 429 Too Many Requests' });
    expect(readRateLimit(codexEnd.split('\n').slice(0, 3).join('\n'))).toEqual({ reason: 'Reconnecting... 5/5 (exceeded retry limit, last status: 429 Too Many Requests)' });
  });

  it('takes a JSON error inside claude\'s words for its message', () => {
    expect(plainReason('API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of concurrent connections has exceeded your rate limit"}}')).toBe(
      'API Error: 429 Number of concurrent connections has exceeded your rate limit',
    );
    expect(plainReason('Error: 429 Too Many Requests')).toBe('Error: 429 Too Many Requests');
  });

  it('cuts a long sentence at a word, never inside one or inside JSON', () => {
    const long = `429 Too Many Requests: ${'slow down please '.repeat(40)}`;
    const reason = readRateLimit(long)!.reason;
    expect(reason.length).toBeLessThanOrEqual(300);
    expect(reason).toMatch(/ please…$|slow down…$|down…$/);
    expect(capAtWord('one two three four', 12)).toBe('one two…');
  });
});

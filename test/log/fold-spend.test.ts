// The fold's spend and rate (issue 29): spend against the budget with what running attempts
// reported so far, the 80% warning, and agents under a rate limit, as status, watch and wait show them.
import { describe, expect, it } from 'vitest';
import { foldOf } from '../../src/log/fold/fold.js';
import { spendOf } from '../../src/log/fold/spend.js';
import type { TeamEvent } from '../../src/log/schema.js';
import { spendLines } from '../../src/views/status/spend.js';
import { makeRunFiles } from '../helpers/runs.js';

const T0 = Date.parse('2026-12-02T09:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
let n = 0;
const ev = (event: Record<string, unknown>, ms = 0) => ({ at: at(ms), run_id: 'r', file: `${String(++n).padStart(4, '0')}.json`, ...event }) as unknown as TeamEvent & { file: string };
const STARTED = { event: 'run_started', mode: 'team', task: 't', workers: 4, agentType: 'executor', limits: {}, gates: [], agents: {}, defaultAgent: 'claude', session: '', parent_session: '', workerMode: 'headless', keepPanes: false, budget: { usd: 1, onExceed: 'stop' } };
const usage = (task: string, attempt: number, cost: number) => ({ event: 'attempt_usage', task_id: task, attempt, stage: 'team-exec', agent: 'claude', cost_usd: cost, tokens: { input: 100, output: 10 } });
const spend = (task: string, attempt: number, cost: number) => ({ event: 'attempt_spend', task_id: task, attempt, stage: 'team-exec', agent: 'claude', cost_usd: cost });

function fold(events: Array<Record<string, unknown>>, ms: number[] = []) {
  return foldOf(makeRunFiles([]).run, events.map((e, i) => ev(e, ms[i] ?? 0)));
}

describe('fold: spend and rate', () => {
  it('counts what running attempts reported so far, replaced by their totals at the end', () => {
    const st = fold([STARTED, usage('t1', 1, 0.3), spend('t2', 1, 0.2), spend('t2', 1, 0.45)]);
    expect(spendOf(st)).toMatchObject({ spentUsd: 0.75, share: 0.75, warning: false });
    const ended = fold([STARTED, usage('t1', 1, 0.3), spend('t2', 1, 0.45), usage('t2', 1, 0.5)]);
    expect(spendOf(ended).spentUsd).toBeCloseTo(0.8);
  });

  it('warns from 80% of the budget and says when it is spent', () => {
    expect(spendLines(spendOf(fold([STARTED, usage('t1', 1, 0.85)])), T0)).toEqual(['budget: $0.85 of $1.00 (85%) — warning: 85% of the budget spent']);
    const spent = fold([STARTED, usage('t1', 1, 1.02), { event: 'budget_exceeded', reason: 'budget spent: $1.02 of $1.00', stop_running: true, spent_usd: 1.02, spent_tokens: 110 }]);
    expect(spendLines(spendOf(spent), T0)[0]).toBe('budget: $1.02 of $1.00 (102%) — spent: no attempt starts until `team resume --budget-usd X` raises it');
    const raised = fold([STARTED, usage('t1', 1, 1.02), { event: 'budget_exceeded', reason: 'x', stop_running: true, spent_usd: 1.02, spent_tokens: 110 }, { event: 'budget_raised', usd: 4 }]);
    expect(spendLines(spendOf(raised), T0)).toEqual(['budget: $1.02 of $4.00 (25%)']);
  });

  it('shows an agent under a rate limit with its lanes and the next try, and its recovery', () => {
    const throttled = { event: 'attempt_throttled', task_id: 't1', attempt: 1, agent: 'claude', reason: '429', retry_after_ms: 40_000, jitter: 0 };
    const st = fold([STARTED, throttled], [0, 1_000]);
    expect(spendLines(spendOf(st), T0 + 1_000)).toContain('throttled: claude 2 of 4 lanes, next try in 40 s');
    const after = fold([STARTED, throttled, { event: 'backoff_ended', agent: 'claude' }, { event: 'task_finished', task_id: 't2', attempt: 1, status: 'completed', stage: 'team-exec', agent: 'claude', session: '', parent_session: '', inputs: [], artifacts: [], evidence: '', next: '' }], [0, 1_000, 41_000, 42_000]);
    expect(spendLines(spendOf(after), T0 + 42_000)).toContain('throttled: claude 3 of 4 lanes');
  });
});

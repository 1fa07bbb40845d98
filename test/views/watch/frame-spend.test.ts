// The live view shows spend against the budget and the agents under a rate limit (issue 29), from a
// real fold of a run's events.
import { describe, expect, it } from 'vitest';
import { foldOf, viewOf } from '../../../src/log/fold/fold.js';
import type { TeamEvent } from '../../../src/log/schema.js';
import { plainFacts, renderFrame } from '../../../src/views/watch/frame.js';
import { toWatchModel } from '../../../src/views/watch/model.js';
import { makeRunFiles } from '../../helpers/runs.js';

const T0 = Date.parse('2026-12-02T09:00:00.000Z');
const events = [
  { event: 'run_started', mode: 'team', task: 'spend', workers: 4, agentType: 'executor', limits: {}, gates: [], agents: {}, defaultAgent: 'claude', session: '', parent_session: '', workerMode: 'headless', keepPanes: false, budget: { usd: 2, onExceed: 'stop' } },
  { event: 'attempt_usage', task_id: 't1', attempt: 1, stage: 'team-exec', agent: 'claude', cost_usd: 1.7, tokens: { input: 10, output: 1 } },
  { event: 'attempt_throttled', task_id: 't2', attempt: 1, agent: 'claude', reason: '429', retry_after_ms: 40_000, jitter: 0 },
].map((e, i) => ({ at: new Date(T0 + i * 1000).toISOString(), run_id: 'r', file: `${i}.json`, ...e }) as unknown as TeamEvent & { file: string });

describe('watch: spend and rate', () => {
  it('shows the budget with its warning and the throttled agent with its next try under the header, and once in plain lines', () => {
    const files = makeRunFiles([]);
    const view = viewOf(foldOf(files.run, events), files, '/nowhere');
    const model = toWatchModel(view, () => '', T0 + 2_000);
    const frame = renderFrame(model, 200);
    expect(frame.slice(3, 5)).toEqual(['budget: $1.70 of $2.00 (85%) — warning: 85% of the budget spent', 'throttled: claude 2 of 4 lanes, next try in 40 s']);
    expect(plainFacts(model)).toEqual(expect.arrayContaining(['budget: $1.70 of $2.00 (85%) — warning: 85% of the budget spent', 'throttled: claude 2 of 4 lanes']));
  });
});

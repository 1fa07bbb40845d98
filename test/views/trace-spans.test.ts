// The trace a log makes (src/views/trace/spans.ts), on logs written by hand: what a resume records
// again, a run that has not ended, content kept out unless asked.
import { describe, expect, it } from 'vitest';
import type { TeamEvent } from '../../src/log/schema.js';
import { spanIdOf, traceOf, TraceBuilder } from '../../src/views/trace/spans.js';

const RUN = '20261205T120000000000Z-abcdef';
const at = (s: number) => `2026-12-05T12:00:${String(s).padStart(2, '0')}.000Z`;
const base = (s: number) => ({ at: at(s), run_id: RUN });
const task = (event: 'task_started' | 'task_finished', s: number, id: string, extra: object = {}) =>
  ({ event, ...base(s), task_id: id, stage: 'team-exec', agent: 'claude', attempt: 1, session: 's', parent_session: 'p', inputs: [], artifacts: [], evidence: 'the secret evidence', next: '', status: 'running', ...extra }) as unknown as TeamEvent;
const ev = (e: object) => e as unknown as TeamEvent;

const LOG: TeamEvent[] = [
  ev({ event: 'run_started', ...base(0), mode: 'team', task: 'the secret task' }),
  ev({ event: 'stage_entered', ...base(1), stage: 'team-exec', iteration: 1, loop: 0 }),
  task('task_started', 2, 't1'),
  ev({ event: 'attempt_usage', ...base(3), task_id: 't1', attempt: 1, stage: 'team-exec', agent: 'claude', tokens: { input: 100, output: 10, cached: 60 }, cost_usd: 0.5 }),
  // The orchestrator was killed; the resume enters the stage it was in again.
  ev({ event: 'run_resumed', ...base(10), pid: 2, retry_interrupted: false }),
  ev({ event: 'stage_entered', ...base(10), stage: 'team-exec', iteration: 1, loop: 0 }),
  task('task_finished', 12, 't1', { status: 'completed' }),
  task('task_started', 13, 't2'),
];

describe('traceOf', () => {
  it('continues a stage the resume entered again as one span, the attempt across the crash as one span', () => {
    const spans = traceOf(RUN, LOG, { content: false });
    const exec = spans.filter((s) => s.name === 'team-exec');
    expect(exec).toHaveLength(1);
    expect(exec[0]!.spanId).toBe(spanIdOf(RUN, 'stage:team-exec:1:0'));
    const t1 = spans.filter((s) => s.attributes['teamline.task.id'] === 't1');
    expect(t1).toHaveLength(1);
    expect(t1[0]).toMatchObject({ parentSpanId: exec[0]!.spanId, status: 'ok', startMs: Date.parse(at(2)), endMs: Date.parse(at(12)) });
    expect(t1[0]!.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 10, 'gen_ai.usage.cache_read.input_tokens': 60, 'teamline.cost_usd': 0.5, 'gen_ai.provider.name': 'anthropic' });
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
  });

  it('ends what the log has not ended where the log ends, and calls the run running', () => {
    const spans = traceOf(RUN, LOG, { content: false });
    const root = spans[0]!;
    expect(root.attributes['teamline.run.status']).toBe('running');
    expect(root.status).toBe('unset');
    const t2 = spans.find((s) => s.attributes['teamline.task.id'] === 't2')!;
    expect([t2.startMs, t2.endMs]).toEqual([Date.parse(at(13)), Date.parse(at(13))]);
    expect(spans.find((s) => s.name === 'team-exec')!.endMs).toBe(Date.parse(at(13)));
    expect(root.events.map((e) => e.name)).toEqual(['run_resumed']);
  });

  it('keeps the task and the agents\' words out unless content is asked for', () => {
    expect(JSON.stringify(traceOf(RUN, LOG, { content: false }))).not.toContain('secret');
    const withContent = traceOf(RUN, LOG, { content: true });
    expect(withContent[0]!.attributes['teamline.run.task']).toBe('the secret task');
    expect(withContent.find((s) => s.attributes['teamline.task.id'] === 't1')!.attributes['teamline.evidence']).toBe('the secret evidence');
  });
});

describe('TraceBuilder', () => {
  it('tells each span as the event that ends it comes (a live export sends it then), and at the run\'s end the run and what is still open', () => {
    const trace = new TraceBuilder(RUN, { content: false });
    const ended = (e: TeamEvent) => trace.add(e).map((s) => s.name);
    expect(LOG.slice(0, 5).flatMap(ended)).toEqual([]);
    expect(ended(LOG[5]!)).toEqual([]);
    expect(ended(LOG[6]!)).toEqual(['invoke_agent claude']);
    expect(ended(LOG[7]!)).toEqual([]);
    expect(ended(ev({ event: 'gates_result', ...base(14), iteration: 1, pass: 1, gates: [{ command: 'npm test', exitCode: 0, timedOut: false, durationMs: 500 }] }))).toEqual(['execute_tool gate']);
    expect(ended(ev({ event: 'stage_completed', ...base(15), stage: 'team-exec' }))).toEqual(['team-exec']);
    // A verify reviewer is an agent the run invokes: its span says its role.
    expect(ended(task('task_started', 16, 'verify-1.security-reviewer', { stage: 'team-verify' }))).toEqual([]);
    expect(ended(ev({ event: 'run_stopped', ...base(17), reason: 'budget' }))).toEqual([]);
    const last = trace.add(ev({ event: 'run_completed', ...base(18) }));
    expect(last.map((s) => s.name).sort()).toEqual(['invoke_agent claude', 'invoke_workflow teamline', 'invoke_agent claude'].sort());
    expect(last.find((s) => s.attributes['teamline.task.id'] === 'verify-1.security-reviewer')!.attributes['teamline.role']).toBe('security-reviewer');
    const root = last.find((s) => s.name === 'invoke_workflow teamline')!;
    expect(root).toMatchObject({ status: 'ok', startMs: Date.parse(at(0)), endMs: Date.parse(at(18)) });
    expect(root.attributes['teamline.run.status']).toBe('completed');
  });
});

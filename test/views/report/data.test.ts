// The report's data from a log: attempts with retries, kills and adoptions marked; stage bands with fix loops.
import { describe, expect, it } from 'vitest';
import { runPaths } from '../../../src/log/write.js';
import { foldRun } from '../../../src/log/fold/fold.js';
import { folderHandoffs, makeReportData } from '../../../src/views/report/data.js';
import { finished, makeRunFiles, RUN_ID, started } from '../../helpers/runs.js';

const PATHS = runPaths('/nonexistent/project', RUN_ID);

function dataOf(events: Array<Record<string, unknown>>, moment: { driven: boolean } = { driven: true }) {
  const files = makeRunFiles(events);
  return makeReportData(files, foldRun(files, PATHS.projectDir), folderHandoffs(PATHS), { now: Date.parse('2026-10-28T13:12:00Z'), ...moment });
}

describe('report data', () => {
  const data = dataOf([
    { event: 'stage_entered', stage: 'team-exec', iteration: 1, loop: 0 },
    started('t1'),
    { event: 'attempt_spawned', task_id: 't1', attempt: 1, worker: 'worker-1', handle: { backend: 'process', pid: 1, pidStart: 1, pgid: 1 } },
    finished('t1', 1, 'failed', { evidence: 'watchdog: no sign of life for 600s (reassign after 600s); killed' }),
    { event: 'task_retry', task_id: 't1', attempt: 2, reason: 'the watchdog killed attempt 1' },
    started('t1', 2),
    { event: 'attempt_spawned', task_id: 't1', attempt: 2, worker: 'worker-1', handle: { backend: 'process', pid: 2, pidStart: 2, pgid: 2 } },
    { event: 'run_resumed', pid: 9, retry_interrupted: false },
    finished('t1', 2, 'completed', { evidence: 'recovered after a restart: done' }),
    { event: 'stage_entered', stage: 'team-fix', iteration: 1, loop: 1 },
    started('fix-1-d1'),
  ]);

  it('marks the killed attempt, the retry with its reason and the attempt adopted after a restart', () => {
    expect(data.attempts.map((a) => ({ id: a.id, lane: a.lane, status: a.status, killed: a.killed, adopted: a.adopted, retryOf: a.retryOf }))).toEqual([
      { id: 't1#1', lane: 'worker-1', status: 'failed', killed: true, adopted: false, retryOf: undefined },
      { id: 't1#2', lane: 'worker-1', status: 'completed', killed: false, adopted: true, retryOf: 'the watchdog killed attempt 1' },
      { id: 'fix-1-d1#1', lane: undefined, status: 'running', killed: false, adopted: false, retryOf: undefined },
    ]);
    expect(data.markers.map((m) => m.kind)).toEqual(['restart']);
  });

  it('draws one band per stage entered, the last open until now', () => {
    expect(data.bands.map((b) => `${b.stage}/${b.loop}`)).toEqual(['team-exec/0', 'team-fix/1']);
    expect(data.bands[1]!.end).toBe(Date.parse('2026-10-28T13:12:00Z'));
    expect(data.end).toBe(Date.parse('2026-10-28T13:12:00Z'));
  });

  it('lists every event with its task and attempt', () => {
    expect(data.events).toHaveLength(11);
    expect(data.events[4]).toMatchObject({ event: 'task_retry', task: 't1', attempt: '2', detail: '{"reason":"the watchdog killed attempt 1"}' });
  });

  describe('of a verify pass that failed', () => {
    const gate = (command: string, exitCode: number) => ({ command, exitCode, timedOut: false, durationMs: 40, output: '' });
    const events = [
        { event: 'run_started', mode: 'team', limits: { maxFixLoops: 3, maxIterations: 1 } },
        { event: 'task_assigned', task_id: 't1', worker: 'worker-1', task: { id: 't1', title: 'Schema', description: 'd' } },
        started('t1'),
        { event: 'attempt_spawned', task_id: 't1', attempt: 1, worker: 'worker-1', handle: { backend: 'process', pid: 1, pidStart: 1, pgid: 1 } },
        { event: 'attempt_usage', task_id: 't1', attempt: 1, stage: 'team-exec', agent: 'claude', cost_usd: 0.5, tokens: { input: 10, output: 2 } },
        finished('t1', 1, 'completed'),
        { event: 'gates_result', iteration: 1, pass: 1, gates: [gate('npm test', 1), gate('true', 0)] },
        started('verify-1', 1, { stage: 'team-verify' }),
        { event: 'attempt_spawned', task_id: 'verify-1', attempt: 1, worker: 'lead', handle: { backend: 'process', pid: 3, pidStart: 3, pgid: 3 } },
        { event: 'verify_result', task_id: 'verify-1', attempt: 1, verdict: 'fail', defects: [{ id: 'd1', description: 'Empty names pass.', task: 't1' }] },
        finished('verify-1', 1, 'completed', { stage: 'team-verify' }),
        { event: 'cancel_requested', by: 'team cancel', force: true },
    ];
    const story = dataOf(events, { driven: false });
    const verify = story.attempts.find((a) => a.id === 'verify-1#1')!;

    it('marks the verify failed, with its verdict, defects and the gates of its pass', () => {
      expect(verify).toMatchObject({ verdictFailed: true, verdict: { verdict: 'fail', defects: [{ id: 'd1', description: 'Empty names pass.', task: 't1' }] } });
      expect(verify.gates).toEqual([
        { command: 'npm test', exitCode: 1, timedOut: false, durationMs: 40 },
        { command: 'true', exitCode: 0, timedOut: false, durationMs: 40 },
      ]);
      expect(story.attempts.find((a) => a.id === 't1#1')).toMatchObject({ title: 'Schema', verdictFailed: false });
    });

    it('labels the cancel marker with who asked', () => {
      expect(story.markers).toEqual([{ kind: 'cancel', at: expect.any(Number), label: 'cancel: team cancel --force' }]);
    });

    it('has a usage row for every task, stage and agent, the unreported ones marked', () => {
      expect(story.usage.byStage).toEqual([
        { key: 'team-exec', costUsd: 0.5, tokens: { input: 10, output: 2 }, reported: true },
        { key: 'team-verify', costUsd: 0, tokens: { input: 0, output: 0 }, reported: false },
      ]);
      expect(story.usage.byAgent.map((r) => [r.key, r.reported])).toEqual([['sim', false], ['claude', true]]);
      expect(story.usage.byTask.map((r) => [r.key, r.title, r.costUsd, r.reported])).toEqual([['t1', 'Schema', 0.5, true], ['verify-1', undefined, 0, false]]);
    });

    it('says that nothing drives a run that is not over, and only then', () => {
      expect(story.undriven).toBe(`nothing drives this run's cancel: \`team cancel --run ${RUN_ID}\` finishes it (its orchestrator stopped or died)`);
      expect(dataOf(events.slice(0, -1), { driven: false }).undriven).toMatch(`nothing drives this run: \`team resume --run ${RUN_ID}\` continues it`);
      expect(dataOf(events, { driven: true }).undriven).toBeUndefined();
      expect(dataOf([...events, { event: 'run_cancelled', reason: 'cancelled' }], { driven: false }).undriven).toBeUndefined();
    });
  });
});

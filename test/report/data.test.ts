// The report's data from a log: attempts with retries, kills and adoptions marked; stage bands with fix loops.
import { describe, expect, it } from 'vitest';
import { runPaths } from '../../src/checkpoint/store.js';
import { foldRun } from '../../src/checkpoint/view.js';
import { folderHandoffs, makeReportData } from '../../src/report/data.js';
import { finished, makeRunFiles, RUN_ID, started } from '../helpers/runs.js';

const PATHS = runPaths('/nonexistent/project', RUN_ID);

function dataOf(events: Array<Record<string, unknown>>) {
  const files = makeRunFiles(events);
  return makeReportData(files, foldRun(files, PATHS.projectDir), folderHandoffs(PATHS), Date.parse('2026-10-28T13:12:00Z'));
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
      { id: 'fix-1-d1#1', lane: 'team-exec', status: 'running', killed: false, adopted: false, retryOf: undefined },
    ]);
    expect(data.restarts).toHaveLength(1);
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
});

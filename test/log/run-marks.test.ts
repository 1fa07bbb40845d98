import { afterEach, describe, expect, it } from 'vitest';
import { readRunEnd, readStartedGrace } from '../../src/log/run-marks.js';
import { appendEvent } from '../../src/log/write.js';
import { writeRawEvent } from '../helpers/events.js';
import { makeRun, removeRuns } from '../helpers/runs.js';

afterEach(removeRuns);

const LIMITS = { maxTasks: 50, maxFixLoops: 3, maxTaskAttempts: 2, maxIterations: 10, statusCheckMs: 300_000, reassignMs: 600_000, shutdownTimeoutMs: 4_000 };

describe('checkpoint/run-marks', () => {
  it('finds no end in a running run', () => {
    const { runId, paths } = makeRun();
    appendEvent(paths, runId, { event: 'task_retry', task_id: 't1', attempt: 2, reason: 'flaky' }, { fsync: false });
    expect(readRunEnd(paths, runId)).toBeUndefined();
  });

  it('reads how the run ended from its end record', () => {
    const { runId, paths } = makeRun();
    appendEvent(paths, runId, { event: 'run_cancelled', reason: 'asked' }, { fsync: false });
    expect(readRunEnd(paths, runId)).toBe('cancelled');
  });

  it('ignores a file named as an end record whose content is something else, as the full read does', () => {
    const { runId, paths } = makeRun();
    writeRawEvent(paths.eventsDir, '20261028T131016577943Z-run_completed-run-a0-abc123.json', JSON.stringify({ event: 'task_retry', at: 'x', run_id: runId }));
    writeRawEvent(paths.eventsDir, '20261028T131016577944Z-run_failed-run-a0-abc124.json', '{"event": "run_fa');
    expect(readRunEnd(paths, runId)).toBeUndefined();
  });

  it('reads the grace period the run started with, not the config of today', () => {
    const { runId, paths } = makeRun();
    expect(readStartedGrace(paths)).toBeUndefined();
    appendEvent(
      paths,
      runId,
      { event: 'run_started', mode: 'team', task: 't', workers: 1, agentType: 'executor', limits: LIMITS, gates: [], agents: {}, defaultAgent: 'sim', session: '', parent_session: '', workerMode: 'headless', keepPanes: false },
      { fsync: false },
    );
    expect(readStartedGrace(paths)).toBe(4_000);
  });
});

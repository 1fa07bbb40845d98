import { describe, expect, it } from 'vitest';
import { replayRun } from '../../src/session/replay.js';
import { CANCELLED, COMPLETED, FIX_LOOP, KILLED_MID_EXEC } from './hand-logs.js';
import { resumeAt } from './resume.js';

describe('replayRun on logs written by hand from docs/formats.md', () => {
  it('folds a completed run to done', () => {
    const replay = replayRun(COMPLETED);
    expect(replay.pending).toEqual([]);
    expect(replay.snapshot.value).toBe('done');
    expect(Object.values(replay.snapshot.context.tasks).map((t) => [t.id, t.status])).toEqual([['t1', 'completed'], ['t2', 'completed']]);
  });

  it('folds a run killed mid-exec to exec with t1 running and t2 waiting for it', () => {
    const replay = replayRun(KILLED_MID_EXEC);
    expect(replay.pending).toEqual([]);
    expect(replay.snapshot.value).toEqual({ exec: 'working' });
    expect(replay.snapshot.context.tasks.t1).toMatchObject({ status: 'running', attempt: 1, worker: 'worker-1' });
    expect(replay.snapshot.context.tasks.t2).toMatchObject({ status: 'pending', attempt: 0 });
  });

  it('folds a run with one fix loop to done, the fix task completed in pass 1', () => {
    const replay = replayRun(FIX_LOOP);
    expect(replay.pending).toEqual([]);
    expect(replay.snapshot.value).toBe('done');
    expect(replay.snapshot.context.loop).toBe(1);
    expect(replay.snapshot.context.tasks['fix-1-d1']).toMatchObject({ kind: 'fix', status: 'completed', pass: 1 });
  });

  it('folds a cancelled run to cancelled, its interrupted task noted', () => {
    const replay = replayRun(CANCELLED);
    expect(replay.pending).toEqual([]);
    expect(replay.snapshot.value).toBe('cancelled');
    expect(replay.snapshot.context.tasks.t1).toMatchObject({ status: 'interrupted' });
  });

  it.each([['completed', COMPLETED], ['fix loop', FIX_LOOP], ['cancelled', CANCELLED]])('resumes the %s log after each of its events to the same end', (_name, log) => {
    const end = replayRun(log).snapshot;
    for (let cut = 1; cut < log.length; cut++) {
      const resumed = resumeAt(log, cut);
      expect(resumed.afterResume.context, `cut ${cut}`).toEqual(resumed.folded.context);
      expect(replayRun(resumed.log).snapshot.value, `cut ${cut}`).toEqual(end.value);
    }
  });
});

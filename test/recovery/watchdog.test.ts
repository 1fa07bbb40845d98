// The watchdog after kill -9 and pauses: its kill is in the log before it is done, and a pause of
// the orchestrator itself (SIGSTOP past reassignMs) never turns an ended attempt into a stalled one.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRecoveryProject, removeRecoveryProjects } from '../helpers/recovery-project.js';
import { ended } from '../helpers/recovery-wait.js';
import { waitFor, waitForEvent } from '../helpers/wait-event.js';
import { expectCleanCompletion, finishes, ledgerOf } from './reconcile-run.js';

// Short, yet long enough that the quick stages of a loaded machine never look silent.
const SHORT_WATCHDOG = { watchdog: { statusCheckMs: 3_000, reassignMs: 6_000 } };

describe('runtime/watch (the watchdog)', () => {
  afterEach(removeRecoveryProjects);

  it('writes the kill of a silent attempt to the log before it kills it, then runs the task again', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('hang-first', { config: SHORT_WATCHDOG });

    const run = await project.team('1:executor', 'a task whose first attempt hangs', '--agent', 'sim');

    expect(run.exitCode, run.stderr).toBe(0);
    const names = project.events().map((e) => `${String(e.event)}:${String(e.task_id)}:${String(e.attempt)}`);
    const stopping = names.indexOf('attempt_stopping:t1:1');
    expect(stopping, names.join('\n')).toBeGreaterThan(names.indexOf('attempt_stalled:t1:1'));
    expect(stopping).toBeLessThan(names.indexOf('task_finished:t1:1'));
    expect(project.events().find((e) => e.event === 'attempt_stopping' && e.task_id === 't1')).toMatchObject({ by: 'watchdog', reason: expect.stringMatching(/^watchdog: no progress for \d+s \(reassign after 6s\); killed$/) });
    expect(finishes(project, 't1')).toEqual([
      [1, 'failed'],
      [2, 'completed'],
    ]);
    await expectCleanCompletion(project);
  });

  it('adopts the result of an attempt that ended while the orchestrator was stopped past reassignMs', { timeout: 240_000 }, async () => {
    // Long enough that no stage of a loaded machine looks silent, short enough for a test.
    const watchdog = { statusCheckMs: 4_000, reassignMs: 8_000 };
    const project = makeRecoveryProject('quick', { config: { watchdog } });
    const orchestrator = project.spawn('1:executor', 'a quick task', '--agent', 'sim');
    await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't1' && e.attempt === 1, { stopIf: ended(orchestrator) });
    process.kill(orchestrator.pid, 'SIGSTOP');
    try {
      await waitFor('t1 a1 to do its work', () => ledgerOf(project, 't1').length > 0);
      // The pause outlasts reassignMs after the attempt's last sign of life.
      await sleep(watchdog.reassignMs + 1_500);
    } finally {
      process.kill(orchestrator.pid, 'SIGCONT');
    }
    const run = await orchestrator.result;

    expect(run.exitCode, run.stderr).toBe(0);
    expect(finishes(project, 't1')).toEqual([[1, 'completed']]);
    expect(project.events().filter((e) => e.event === 'attempt_stopping' || e.event === 'attempt_stalled')).toEqual([]);
    await expectCleanCompletion(project);
  });
});

// A cancel always wins a race with a resume: kill -9 the orchestrator, start `team resume` and at
// once `team cancel`. Whichever takes the lock, the run ends cancelled and the cancel exits 0: a
// cancel that finds the lock taken meanwhile asks the new holder, which hears a signal that came
// while it was still taking the run over.
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpCancelProjects, makeCancelProject, type CancelProject } from '../helpers/cancel-run.js';
import { CLI } from '../helpers/team.js';
import { expectCleanCancel } from './clean-end.js';
import { waitFor } from '../helpers/wait-event.js';

afterEach(cleanUpCancelProjects);

// `team <args>` in the project, started now; ended after 60 s (a hang fails the test).
function start(project: CancelProject, args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, [CLI, ...args], { cwd: project.dir, env: { ...project.env, ...env }, reject: false, stdin: 'ignore', timeout: 60_000 });
}

// A run whose one worker hangs and whose orchestrator was killed (kill -9).
async function makeOrphanedRun(): Promise<{ project: CancelProject; runId: string }> {
  const project = makeCancelProject({ scenario: 'cancel-one-hang.json', graceMs: 500 });
  const run = project.start('1:executor', 'a run killed, then resumed and cancelled at once');
  const runId = await project.waitForWorkers(['t1']);
  process.kill(run.pid, 'SIGKILL');
  await run.exited;
  return { project, runId };
}

describe('team cancel racing team resume', () => {
  it('asks a resume that took the lock between its look and its takeover, and waits for the cancelled end', async () => {
    const { project, runId } = await makeOrphanedRun();
    // The cancel pauses between its look (no live orchestrator) and its takeover; the resume takes the run then.
    const cancel = start(project, ['cancel'], { TEAMLINE_TEST_SWEEP_DELAY_MS: '4000' });
    await sleep(1_500);
    const resume = start(project, ['resume']);
    const cancelled = await cancel;
    expect(String(cancelled.stderr)).toContain(`asked orchestrator pid ${resume.pid} to cancel run ${runId}; waiting`);
    expect(cancelled.exitCode, String(cancelled.stderr)).toBe(0);
    const resumed = await resume;
    expect(resumed.exitCode, String(resumed.stderr)).toBe(3);
    expect(String(resumed.stderr)).toContain('!! cancel requested by team cancel');
    await expectCleanCancel(project, runId, ['t1']);
  }, 120_000);

  it('ends the run cancelled whichever of the two starts first, three times in a row', async () => {
    for (let round = 0; round < 3; round++) {
      const { project, runId } = await makeOrphanedRun();
      const resume = start(project, ['resume']);
      const cancel = await start(project, ['cancel']);
      expect(cancel.exitCode, `round ${round}: ${String(cancel.stderr)}`).toBe(0);
      const resumed = await resume;
      // A resume that came second finds the run cancelled, or driven by the cancel.
      expect([2, 3], `round ${round}: ${String(resumed.stderr)}`).toContain(resumed.exitCode);
      await waitFor('the lock to be released', () => !existsSync(`${project.runDir(runId)}/lock.json`), 10_000);
      await expectCleanCancel(project, runId, ['t1']);
    }
  }, 240_000);
});

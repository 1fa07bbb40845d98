// Takeover of a dead orchestrator's lock through the built CLI: of many `team resume` at once, round
// after round, one takes the run over and the others exit 2 naming it; a taker killed inside its
// takeover holds the next resume up for a moment only, even when the clock was set back.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRecoveryProject, removeRecoveryProjects, type Orchestrator, type RecoveryProject } from '../helpers/recovery-project.js';
import { ended, killOrchestrator } from '../helpers/recovery-wait.js';
import { waitFor, waitForEvent } from '../helpers/wait-event.js';
import { ROOT } from '../helpers/team.js';

const CONTENDERS = 6;
const ROUNDS = 5;
// The test-only pause of src/store/files/lock.ts inside a takeover (marker made, stale lock not yet
// removed): the contenders' takeovers overlap in every round.
const DELAY = 'TEAMLINE_TEST_TAKEOVER_DELAY_MS';
// Preloaded into a resume: its wall clock reads a day behind, as after a clock set back.
const CLOCK_BEHIND = `--import=${join(ROOT, 'test/fixtures/lock/clock-behind.mjs')}`;

const resumedBy = (project: RecoveryProject, pid: number) => project.events().some((e) => e.event === 'run_resumed' && e.pid === pid);
const markers = (project: RecoveryProject) => readdirSync(project.runDir()).filter((name) => name.startsWith('lock.json.takeover-'));

// A run whose only exec attempt hangs, its orchestrator killed -9 while it does: a stale lock.
async function killedRun(): Promise<RecoveryProject> {
  const project = makeRecoveryProject('hang-first');
  const orchestrator = project.spawn('1:executor', 'resumed by many at once', '--agent', 'sim');
  await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't1' && e.attempt === 1, { stopIf: ended(orchestrator) });
  await killOrchestrator(orchestrator);
  return project;
}

// Waits until `resume` took the run over (the hanging attempt keeps it running); fails if it ended first.
async function expectTakeover(project: RecoveryProject, resume: Orchestrator): Promise<void> {
  await waitFor(`resume pid ${resume.pid} to take the run over or end`, () => resume.exited || resumedBy(project, resume.pid), 120_000);
  if (!resumedBy(project, resume.pid)) {
    const result = await resume.result;
    throw new Error(`resume pid ${resume.pid} exited ${result.exitCode} without taking the run over: ${result.stderr}`);
  }
}

// A resume killed -9 inside its takeover: it left its marker beside the dead holder's lock.
async function killTakerInside(project: RecoveryProject): Promise<void> {
  const taker = project.spawnWith({ [DELAY]: '600000' }, 'resume');
  await waitFor('the taker to make its marker', () => {
    if (taker.exited) throw new Error(`the taker (pid ${taker.pid}) ended before making its marker`);
    return markers(project).length === 1;
  }, 120_000);
  await killOrchestrator(taker);
}

describe('runtime/lock (takeover of a killed run by resumes)', () => {
  afterEach(removeRecoveryProjects);

  it('lets exactly one of many simultaneous resumes take the run over in every round; the others exit 2 naming it', { timeout: 600_000 }, async () => {
    const project = await killedRun();
    for (let round = 0; round < ROUNDS; round++) {
      const contenders = Array.from({ length: CONTENDERS }, () => project.spawnWith({ [DELAY]: '400' }, 'resume'));
      await waitFor(`round ${round}: every resume to end or take the run over`, () => contenders.every((c) => c.exited || resumedBy(project, c.pid)), 240_000);

      const takers = contenders.filter((c) => resumedBy(project, c.pid));
      expect(takers.map((c) => c.pid), `round ${round}`).toHaveLength(1);
      const taker = takers[0]!;
      expect(taker.exited, `round ${round}: the taker still drives the run`).toBe(false);
      for (const other of contenders.filter((c) => c !== taker)) {
        const result = await other.result;
        expect(result.exitCode, `round ${round}: ${result.stderr}`).toBe(2);
        expect(result.stderr, `round ${round}`).toContain(`is driven by another orchestrator: pid ${taker.pid} (team resume, since `);
      }
      // Dead again: the next round takes over this taker's lock.
      await killOrchestrator(taker);
    }
    expect(project.events().filter((e) => e.event === 'run_resumed')).toHaveLength(ROUNDS);
    expect(markers(project)).toEqual([]);
    const cancelled = await project.team('cancel', '--force');
    expect(cancelled.exitCode, cancelled.stderr).toBe(0);
  });

  it('takes a run over right after a taker was killed inside its takeover, waiting out the marker it left', { timeout: 300_000 }, async () => {
    const project = await killedRun();
    await killTakerInside(project);

    const resume = project.spawn('resume');
    await expectTakeover(project, resume);

    expect(markers(project)).toEqual([]);
    expect(project.events().filter((e) => e.event === 'run_resumed').map((e) => e.pid)).toEqual([resume.pid]);
  });

  it('takes a run over after a taker was killed inside its takeover and the clock was set back a day', { timeout: 300_000 }, async () => {
    const project = await killedRun();
    await killTakerInside(project);

    const resume = project.spawnWith({ NODE_OPTIONS: CLOCK_BEHIND }, 'resume');
    await expectTakeover(project, resume);

    expect(markers(project)).toEqual([]);
  });
});

// `team ralph` killed with SIGKILL in iteration 2, then `team resume --retry-interrupted`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamResult } from '../helpers/team.js';
import { removeProjects, type StatusJson } from '../helpers/project.js';
import { killRecordedGroups } from '../helpers/live-groups.js';
import { duplicates, eventsNamed, makeRalphProject, whileRunning, type LogEvent, type Orchestrator, type RalphProject } from './ralph-project.js';
import { waitForEvent } from '../helpers/wait-event.js';

// The reason in test/fixtures/scenarios/ralph-crash-in-iteration-2.json: review 1 rejects, review 2 approves.
const REASON = 'Error messages do not say which field is wrong.';
const CAP = 3;

describe('team ralph', () => {
  describe('killed with SIGKILL while an attempt of iteration 2 runs, then resumed', () => {
    let project: RalphProject;
    let orchestrator: Orchestrator;
    let killed: TeamResult;
    let atCrash: { events: LogEvent[]; status: TeamResult; json: StatusJson };
    let resumed: TeamResult;
    let events: LogEvent[];

    beforeAll(async () => {
      project = makeRalphProject('ralph-crash-in-iteration-2');
      orchestrator = project.startRalph('1:executor', 'add input validation', '--max-iterations', String(CAP), '--max-fix-loops', '0');
      await waitForEvent(project, 'iteration_started', (e) => e.iteration === 2, whileRunning(orchestrator));
      // i2.t1 sleeps 3 s in the scenario: the kill lands while it runs.
      await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 'i2.t1', whileRunning(orchestrator));
      process.kill(orchestrator.pid, 'SIGKILL');
      killed = await orchestrator.done;
      atCrash = { events: project.events(), status: await project.team('status'), json: await project.statusJson() };
      resumed = await project.team('resume', '--retry-interrupted');
      events = project.events();
    }, 240_000);

    afterAll(() => {
      killRecordedGroups(eventsNamed(project.events(), 'attempt_spawned').map((e) => e.handle!));
      removeProjects();
    });

    it('leaves the run in iteration 2 with the attempt of i2.t1 uncertain', () => {
      expect(killed.exitCode).not.toBe(0);
      expect(eventsNamed(atCrash.events, 'run_completed')).toEqual([]);
      expect(atCrash.json.status).toBe('running');
      expect(atCrash.json.pipeline).toMatchObject({ iteration: 2, maxIterations: CAP });
      expect(atCrash.json.attention.uncertain).toEqual([{ task: 'i2.t1', attempt: 1 }]);
    });

    it('shows in team status after the crash iteration 2 of 3 and why the architect rejected iteration 1', () => {
      expect(atCrash.status.stdout).toContain(`  iteration 2 of ${CAP}\n`);
      expect(atCrash.status.stdout).toContain('  fix loop 0 of 0\n');
      expect(atCrash.status.stdout, atCrash.status.stdout).toContain(REASON);
    });

    it('continues in iteration 2 and completes when the second review approves', () => {
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      const after = events.slice(events.findIndex((e) => e.event === 'run_resumed'));
      expect(after[0]?.event).toBe('run_resumed');
      const nextStage = after.find((e) => e.event === 'stage_entered');
      expect([nextStage?.stage, nextStage?.iteration]).toEqual(['team-verify', 2]);
      expect(after.filter((e) => e.event === 'task_started').map((e) => e.task_id)).toEqual(['i2.verify-1', 'i2.review-1']);
      expect(eventsNamed(events, 'review_result').map((e) => [e.task_id, e.verdict])).toEqual([
        ['review-1', 'reject'],
        ['i2.review-1', 'approve'],
      ]);
      expect(eventsNamed(events, 'run_completed')).toHaveLength(1);
    });

    it('never starts over at iteration 1 and writes iteration_started 2 once, with no iteration 3', () => {
      expect(eventsNamed(events, 'iteration_started').map((e) => e.iteration)).toEqual([2]);
      const after = events.slice(events.findIndex((e) => e.event === 'run_resumed'));
      expect(after.filter((e) => e.event === 'stage_entered').map((e) => e.iteration)).not.toContain(1);
      expect(after.filter((e) => e.event === 'task_started' && !e.task_id!.startsWith('i2.'))).toEqual([]);
    });

    it('does not start the attempt the crash interrupted a second time', () => {
      const spawnedTwice = duplicates(eventsNamed(events, 'attempt_spawned').map((e) => `${e.task_id}#${e.attempt}`));
      expect(spawnedTwice, 'attempts with two attempt_spawned events').toEqual([]);
      const workedTwice = duplicates(project.ledger().map((l) => `${l.task}#${l.attempt}`));
      expect(workedTwice, 'attempts whose work the sim ledger shows twice').toEqual([]);
    });

    it('shows the run completed in iteration 2 of 3 in team status --json', async () => {
      const json = await project.statusJson();
      expect(json.status).toBe('completed');
      expect(json.pipeline).toMatchObject({ iteration: 2, maxIterations: CAP, lastReview: { verdict: 'approve' } });
    });
  });
});

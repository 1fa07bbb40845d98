// `team ralph` cancelled by `team cancel` from another process while iteration 2's fix loop runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamResult } from '../helpers/team.js';
import { removeProjects } from '../helpers/project.js';
import { killRecordedGroups, liveMembersOfGroups } from '../helpers/live-groups.js';
import { eventsNamed, makeRalphProject, whileRunning, type LogEvent, type Orchestrator, type RalphProject } from './ralph-project.js';
import { waitForEvent } from '../helpers/wait-event.js';

// The reason in test/fixtures/scenarios/ralph-cancel-in-iteration-2.json; every review rejects.
const REASON = 'Error messages do not say which field is wrong.';
const CAP = 3;

describe('team ralph', () => {
  describe('cancelled by team cancel in iteration 2', () => {
    let project: RalphProject;
    let orchestrator: Orchestrator;
    let cancel: TeamResult;
    let run: TeamResult;
    let events: LogEvent[];

    beforeAll(async () => {
      project = makeRalphProject('ralph-cancel-in-iteration-2');
      orchestrator = project.startRalph('1:executor', 'add input validation', '--max-iterations', String(CAP), '--max-fix-loops', '1');
      // The scenario's fix tasks of iteration 2 hang, ignore SIGTERM and keep a child process.
      await waitForEvent(project, 'attempt_spawned', (e) => /^i2\.fix-/.test(e.task_id), whileRunning(orchestrator));
      cancel = await project.team('cancel');
      run = await orchestrator.done;
      events = project.events();
    }, 240_000);

    afterAll(() => {
      killRecordedGroups(eventsNamed(project.events(), 'attempt_spawned').map((e) => e.handle!));
      removeProjects();
    });

    it('makes the ralph run exit 3 and records it cancelled', () => {
      expect(cancel.exitCode, cancel.stderr).toBe(0);
      expect(run.exitCode, run.stderr).toBe(3);
      expect(eventsNamed(events, 'cancel_requested')).toHaveLength(1);
      expect(eventsNamed(events, 'run_cancelled')).toHaveLength(1);
      expect(events.at(-1)!.event).toBe('run_cancelled');
      const hung = eventsNamed(events, 'task_finished').filter((e) => e.task_id!.startsWith('i2.fix-'));
      expect(hung.map((e) => e.status)).toEqual(['interrupted']);
    });

    it('cancels the pipeline inside the ralph loop: no live process is left in any spawned group', () => {
      const handles = eventsNamed(events, 'attempt_spawned').map((e) => e.handle!);
      expect(handles.length).toBeGreaterThan(8);
      expect(Object.fromEntries(liveMembersOfGroups(handles.map((h) => h.pgid)))).toEqual({});
    });

    it('refuses team resume with exit 2 and writes no event', async () => {
      const before = project.events().map((e) => e.file);
      const resume = await project.team('resume');
      expect(resume.exitCode).toBe(2);
      expect(resume.stderr).toContain('cancelled');
      expect(project.events().map((e) => e.file)).toEqual(before);
    });

    it('shows in team status iteration 2 of 3, fix loop 1 of 1 and the last review\'s reasons', async () => {
      const status = await project.team('status');
      expect(status.stdout).toMatch(/^ {2}status cancelled/m);
      expect(status.stdout).toContain(`  iteration 2 of ${CAP}\n`);
      expect(status.stdout).toContain('  fix loop 1 of 1\n');
      expect(status.stdout).toContain(`  last review: reject — ${REASON}\n`);
      const json = await project.statusJson();
      expect(json.pipeline).toMatchObject({ iteration: 2, maxIterations: CAP, loop: 1, maxFixLoops: 1, lastReview: { verdict: 'reject', reasons: [REASON] } });
    });
  });
});

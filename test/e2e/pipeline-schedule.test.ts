// The built `team` CLI runs a diamond of dependent tasks on a fixed number of workers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { allOverlap, attemptSpans, eventsOf, makeSimProject, maxConcurrent, type RunRead, type SimProject } from '../helpers/sim-project.js';
import type { TeamResult } from '../helpers/team.js';

// a; b, c, d after a; e after b, c, d; f after e.
const BLOCKERS: Record<string, string[]> = { a: [], b: ['a'], c: ['a'], d: ['a'], e: ['b', 'c', 'd'], f: ['e'] };

afterAll(removeProjects);

describe('pipeline schedule', () => {
  describe('with 3 workers', () => {
    let project: SimProject;
    let result: TeamResult;
    let run: RunRead;

    beforeAll(async () => {
      project = makeSimProject('e2e-diamond');
      result = await project.team('3:executor', 'add input validation to the API', '--agent', 'sim');
      run = project.readRun();
    });

    it('completes the diamond and exits 0', () => {
      expect(result.exitCode, result.stderr).toBe(0);
      expect(eventsOf(run.events, 'run_completed')).toHaveLength(1);
      expect(run.problems).toEqual([]);
    });

    it('never runs more than 3 exec attempts at once', () => {
      expect(maxConcurrent(attemptSpans(run.events))).toBeLessThanOrEqual(3);
    });

    it('runs b, c and d at the same time, 3 at once, as the graph allows', () => {
      const spans = attemptSpans(run.events);
      const middle = spans.filter((s) => ['b', 'c', 'd'].includes(s.task));
      expect(middle).toHaveLength(3);
      expect(allOverlap(middle)).toBe(true);
      expect(maxConcurrent(spans)).toBe(3);
    });

    it('starts each task only after every task it is blocked by finished', () => {
      const spans = attemptSpans(run.events);
      const spanOf = (task: string) => spans.find((s) => s.task === task)!;
      for (const [task, blockers] of Object.entries(BLOCKERS)) {
        for (const blocker of blockers) expect(spanOf(task).start, `${task} after ${blocker}`).toBeGreaterThanOrEqual(spanOf(blocker).end);
      }
    });

    it('gives every exec task exactly one attempt, completed', () => {
      const spans = attemptSpans(run.events);
      expect(spans.map((s) => s.task).sort()).toEqual(Object.keys(BLOCKERS));
      for (const span of spans) expect(span, span.task).toMatchObject({ attempt: 1, status: 'completed' });
    });

    it('leaves one sim ledger line per attempt of the run', () => {
      const ledger = project.ledger();
      const attempts = eventsOf(run.events, 'task_started').map((e) => `${e.task_id}#${e.attempt}`);
      expect(ledger.every((line) => line.run === run.runId)).toBe(true);
      expect(ledger.map((line) => `${line.task}#${line.attempt}`).sort()).toEqual([...attempts].sort());
    });
  });

  describe('with 2 workers', () => {
    it('never runs more than 2 exec attempts at once, even where the graph allows 3', async () => {
      const project = makeSimProject('e2e-diamond');
      const result = await project.team('2:executor', 'add input validation to the API', '--agent', 'sim');
      expect(result.exitCode, result.stderr).toBe(0);
      const spans = attemptSpans(project.readRun().events);
      expect(spans).toHaveLength(6);
      expect(maxConcurrent(spans)).toBe(2);
    });
  });
});

// The built `team` CLI with --json: one JSON progress event per line on stdout, human progress on stderr.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { makeSimProject } from '../helpers/sim-project.js';
import type { TeamResult } from '../helpers/team.js';

afterAll(removeProjects);

describe('pipeline --json', () => {
  let result: TeamResult;
  let lines: string[];
  let events: Array<{ type: string; [key: string]: unknown }>;

  beforeAll(async () => {
    const project = makeSimProject('e2e-verify-fails-once');
    result = await project.team('2:executor', 'refuse empty names', '--agent', 'sim', '--json');
    lines = result.stdout.split('\n').filter((line) => line !== '');
    events = lines.map((line) => JSON.parse(line) as { type: string });
  });

  it('prints one JSON object per line on stdout, and nothing else', () => {
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.endsWith('\n')).toBe(true);
    expect(lines.length).toBeGreaterThan(5);
    for (const event of events) {
      expect(event).toBeTypeOf('object');
      expect(event.type).toBeTypeOf('string');
    }
  });

  it('reports each stage as it is entered, in pipeline order', () => {
    const stages = events.filter((e) => e.type === 'stage').map((e) => e.stage);
    expect(stages).toEqual(['team-plan', 'team-prd', 'team-exec', 'team-verify', 'team-fix', 'team-exec', 'team-verify']);
    expect(events.filter((e) => e.type === 'fix.loop').map((e) => e.loop)).toEqual([1]);
  });

  it('reports each attempt starting and finishing', () => {
    const started = events.filter((e) => e.type === 'attempt.started').map((e) => `${String(e.task)}#${String(e.attempt)}`);
    const finished = events.filter((e) => e.type === 'attempt.finished').map((e) => `${String(e.task)}#${String(e.attempt)}`);
    expect(started).toContain('schema#1');
    expect(started).toContain('fix-1-d-empty-name#1');
    expect([...finished].sort()).toEqual([...started].sort());
  });

  it('ends with a summary event of the outcome', () => {
    expect(events.at(-1)).toMatchObject({ type: 'summary', outcome: 'completed', fixLoops: 1 });
  });

  it('keeps the human progress on stderr, with no JSON there', () => {
    expect(result.stderr).toContain('== team-plan');
    expect(result.stderr).toMatch(/COMPLETED/);
    expect(result.stderr.split('\n').some((line) => line.startsWith('{'))).toBe(false);
  });
});

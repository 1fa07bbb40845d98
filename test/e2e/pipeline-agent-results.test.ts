// The built `team` CLI judges an attempt by its validated result, never by its exit code alone.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects, type StatusJson } from '../helpers/project.js';
import { allRoles, eventsOf, makeSimProject, shellAgent, type RunRead, type SimProject } from '../helpers/sim-project.js';
import type { TeamResult } from '../helpers/team.js';

// Two command agents beside the sim: one exits 0 and says nothing, one writes a fine result and exits 3.
const CONFIG = {
  agents: {
    silent: { adapter: 'command', command: 'true' },
    liar: shellAgent(`printf '%s' '{"status":"completed","summary":"all done","evidence":"trust me"}' > "$TEAM_RESULT_FILE"; exit 3`),
  },
  roles: allRoles('sim', { 'silent-role': 'silent', 'liar-role': 'liar' }),
  team: { maxTaskAttempts: 1 },
};

afterAll(removeProjects);

describe('pipeline agent results', () => {
  let project: SimProject;
  let result: TeamResult;
  let run: RunRead;
  let status: StatusJson;

  // One attempt per task (maxTaskAttempts 1), one worker per task, no fix loop.
  beforeAll(async () => {
    project = makeSimProject('e2e-agent-results', CONFIG);
    result = await project.team('6:executor', 'add input validation to the API', '--max-fix-loops', '0');
    run = project.readRun();
    status = project.statusView();
  });

  const onlyAttempt = (task: string) => {
    const view = status.tasks.find((t) => t.id === task);
    expect(view, `task ${task}`).toBeDefined();
    expect(view!.attempts, `attempts of ${task}`).toHaveLength(1);
    return view!.attempts[0]!;
  };

  it('fails an attempt whose agent exits 0 with no result, saying there is none', () => {
    expect(onlyAttempt('silent')).toMatchObject({ status: 'failed', agent: 'silent' });
    expect(onlyAttempt('silent').evidence).toContain('no result');
  });

  it('fails an attempt whose agent exits non-zero after writing a valid completed result', () => {
    expect(onlyAttempt('liar')).toMatchObject({ status: 'failed', agent: 'liar' });
    expect(onlyAttempt('liar').evidence).toContain('exited 3');
  });

  it('fails an attempt whose agent exits non-zero with no result, naming the exit code', () => {
    expect(onlyAttempt('crasher').status).toBe('failed');
    expect(onlyAttempt('crasher').evidence).toContain('exited 7');
  });

  it('fails an attempt whose result is not JSON, saying so', () => {
    expect(onlyAttempt('garbled').status).toBe('failed');
    expect(onlyAttempt('garbled').evidence).toContain('not valid JSON');
  });

  it('fails an attempt whose result lacks required fields, naming the field', () => {
    expect(onlyAttempt('partial').status).toBe('failed');
    expect(onlyAttempt('partial').evidence).toMatch(/invalid: summary/);
  });

  it('accepts a result printed as the last fenced json block of the output, with no result file', () => {
    expect(onlyAttempt('fenced')).toMatchObject({ status: 'completed', artifacts: ['sim-output/fenced.txt'] });
    const dir = join(run.paths.attemptsDir, 'fenced', 'a1');
    expect(existsSync(join(dir, 'result.json'))).toBe(false);
    expect(readFileSync(join(dir, 'output.log'), 'utf8')).toContain('```json');
  });

  it("accepts a planner's plan printed as a fenced json block", () => {
    expect(onlyAttempt('plan').status).toBe('completed');
    expect(existsSync(join(run.paths.attemptsDir, 'plan', 'a1', 'result.json'))).toBe(false);
    expect(eventsOf(run.events, 'plan_accepted')[0]!.tasks.map((t) => t.id)).toEqual(['silent', 'liar', 'crasher', 'garbled', 'partial', 'fenced']);
  });

  it('does not end a run completed, nor exit 0, when its tasks failed', () => {
    // 1 of 6 tasks completed; verify has no fix loop left (--max-fix-loops 0).
    expect(result.exitCode, result.stderr).toBe(1);
    expect(status.status).not.toBe('completed');
  });
});

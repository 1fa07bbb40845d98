// The built `team` CLI runs the configured verify gates: a gate that fails fails verify, whatever the verifier says.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHandoffs } from '../../handoffs/read.js';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, makeSimProject, type RunRead, type SimProject } from '../helpers/sim-project.js';
import type { TeamResult } from '../helpers/team.js';

const FAILING_GATES = ['echo gate one says hello', 'sh -c "exit 3"', 'false'];

afterAll(removeProjects);

describe('pipeline gates', () => {
  describe('a failing gate with a verifier that says pass', () => {
    let project: SimProject;
    let result: TeamResult;
    let run: RunRead;

    beforeAll(async () => {
      project = makeSimProject('e2e-one-task', { verify: { commands: FAILING_GATES } });
      result = await project.team('1:executor', 'refuse empty names', '--agent', 'sim', '--max-fix-loops', '0');
      run = project.readRun();
    });

    it('fails verify and so the run, with exit 1', () => {
      expect(result.exitCode, result.stderr).toBe(1);
      expect(eventsOf(run.events, 'verify_result').map((e) => e.verdict)).toEqual(['pass']);
      expect(eventsOf(run.events, 'run_failed')).toHaveLength(1);
    });

    it('runs every gate and records each exit code', () => {
      const gates = eventsOf(run.events, 'gates_result');
      expect(gates).toHaveLength(1);
      expect(gates[0]!.gates.map((g) => [g.command, g.exitCode])).toEqual([
        [FAILING_GATES[0], 0],
        [FAILING_GATES[1], 3],
        [FAILING_GATES[2], 1],
      ]);
    });

    it('keeps each gate output under the run folder, in gates/', () => {
      const dir = join(run.paths.runDir, 'gates');
      expect(readdirSync(dir)).toHaveLength(FAILING_GATES.length);
      const outputs = readdirSync(dir).map((name) => readFileSync(join(dir, name), 'utf8'));
      expect(outputs.some((text) => text.includes('gate one says hello'))).toBe(true);
    });

    it('names the failing gates as defects in the summary and the verify handoff', () => {
      expect(result.stderr).toContain('sh -c "exit 3"` exited 3');
      expect(result.stderr).toContain('`false` exited 1');
      const verify = readHandoffs(run.paths.handoffsDir).find((h) => h.stage === 'team-verify')!;
      expect(verify.text).toContain('gate-2');
      expect(verify.text).toContain('gate-3');
    });

    it('lists the failing gates among the last defects in status', () => {
      const status = project.statusView();
      expect(status.status).toBe('failed');
      expect(status.pipeline.lastDefects.map((d) => d.id)).toEqual(['gate-2', 'gate-3']);
    });
  });

  it('completes when every gate passes and the verifier says pass, running gates in the project', async () => {
    const project = makeSimProject('e2e-one-task', { verify: { commands: ['true', 'echo ran > gate-ran.txt'] } });
    const result = await project.team('1:executor', 'refuse empty names', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const { events } = project.readRun();
    expect(eventsOf(events, 'gates_result')[0]!.gates.map((g) => g.exitCode)).toEqual([0, 0]);
    expect(eventsOf(events, 'run_completed')).toHaveLength(1);
    expect(existsSync(join(project.dir, 'gate-ran.txt'))).toBe(true);
  });
});

// The built `team` CLI loops through bounded fixes when verify fails.
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, makeSimProject } from '../helpers/sim-project.js';

afterAll(removeProjects);

describe('pipeline fix loop', () => {
  it('completes after two fix loops when verify fails twice, then passes', async () => {
    const project = makeSimProject('e2e-verify-fails-twice');
    const result = await project.team('2:executor', 'refuse empty names', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    // The person sees each failed verdict and the defects the fix loop takes on.
    expect(result.stderr).toMatch(/^✔ verify-1 a1 completed on lead in \d+\.\ds — verdict fail, 1 defect\(s\)$/m);
    expect(result.stderr).toMatch(/^ {3}fix loop 1: 1 defect\(s\)\n {5}- d-empty( \(\S+\))?: \S/m);
    const { events } = project.readRun();
    expect(eventsOf(events, 'fix_loop_started').map((e) => e.loop)).toEqual([1, 2]);
    expect(eventsOf(events, 'verify_result').map((e) => e.verdict)).toEqual(['fail', 'fail', 'pass']);
    expect(eventsOf(events, 'run_completed')).toHaveLength(1);
    const status = await project.statusJson();
    expect(status).toMatchObject({ status: 'completed', pipeline: { loop: 2, maxFixLoops: 3 } });
    const fixTasks = status.tasks.filter((t) => t.id.startsWith('fix-'));
    expect(fixTasks.map((t) => [t.id, t.status])).toEqual([
      ['fix-1-d-empty', 'completed'],
      ['fix-2-d-empty', 'completed'],
    ]);
  });

  it('fails with exit 1 after exactly 3 fix loops when verify always fails, naming the defects', async () => {
    const project = makeSimProject('e2e-verify-always-fails');
    const result = await project.team('1:executor', 'refuse empty names', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(1);
    const { events } = project.readRun();
    expect(eventsOf(events, 'fix_loop_started').map((e) => e.loop)).toEqual([1, 2, 3]);
    expect(eventsOf(events, 'verify_result')).toHaveLength(4);
    const failed = eventsOf(events, 'run_failed');
    expect(failed).toHaveLength(1);
    expect(events.at(-1)!.event).toBe('run_failed');
    expect(failed[0]!.reason).toContain('d-build');
    expect(result.stderr).toMatch(/FAILED/);
    expect(result.stderr).toContain('last defects:');
    expect(result.stderr).toContain('d-build: The build still fails on src/api.ts.');
    const status = project.statusView();
    expect(status).toMatchObject({ status: 'failed', pipeline: { loop: 3, maxFixLoops: 3 } });
  });

  it('stops after exactly one fix loop with --max-fix-loops 1', async () => {
    const project = makeSimProject('e2e-verify-always-fails');
    const result = await project.team('1:executor', 'refuse empty names', '--agent', 'sim', '--max-fix-loops', '1');
    expect(result.exitCode, result.stderr).toBe(1);
    const { events } = project.readRun();
    expect(eventsOf(events, 'fix_loop_started').map((e) => e.loop)).toEqual([1]);
    expect(eventsOf(events, 'verify_result')).toHaveLength(2);
    expect(eventsOf(events, 'run_failed')).toHaveLength(1);
    expect(project.statusView().pipeline).toMatchObject({ loop: 1, maxFixLoops: 1 });
  });
});

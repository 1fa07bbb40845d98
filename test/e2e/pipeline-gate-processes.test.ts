// The built `team` CLI runs each verify gate in its own process group and ends the whole group:
// a gate that times out, leaves a child behind, or is cancelled leaves no process running.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { isRunning } from '../helpers/proc-groups.js';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, makeSimProject, type SimProject } from '../helpers/sim-project.js';
import { CLI } from '../helpers/team.js';
import { waitFor } from '../helpers/wait-event.js';

// Two children of the gate's shell, their pids written in the project: one in the background, one waited for.
const STARTS_CHILDREN = 'sleep 600 & echo $! > gate-bg.pid; sleep 601 & echo $! > gate-fg.pid; echo children started; wait';

const started: number[] = [];

// The pids a gate wrote; remembered so that the test ends them should the code under test not.
function gateChildren(project: SimProject): number[] {
  const pids = ['gate-bg.pid', 'gate-fg.pid'].map((name) => Number(readFileSync(join(project.dir, name), 'utf8').trim()));
  started.push(...pids);
  return pids;
}

afterAll(() => {
  for (const pid of started) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  removeProjects();
});

describe('pipeline gate processes', () => {
  it('ends every process of a gate that times out, and records the timeout', async () => {
    const project = makeSimProject('e2e-one-task', { verify: { commands: [STARTS_CHILDREN], timeoutMs: 1_500 } });
    const result = await project.team('1:executor', 'refuse empty names', '--agent', 'sim', '--max-fix-loops', '0');
    const children = gateChildren(project);
    expect(result.exitCode, result.stderr).toBe(1);
    expect(children.filter(isRunning)).toEqual([]);
    const [gates] = eventsOf(project.readRun().events, 'gates_result');
    expect(gates!.gates[0]).toMatchObject({ timedOut: true, exitCode: null });
    expect(gates!.gates[0]!.output).toContain('children started');
  });

  it('ends what a gate left running in the background once the gate exits', async () => {
    const project = makeSimProject('e2e-one-task', { verify: { commands: ['sleep 600 & echo $! > gate-bg.pid; sleep 601 & echo $! > gate-fg.pid; echo left behind'] } });
    const result = await project.team('1:executor', 'refuse empty names', '--agent', 'sim', '--max-fix-loops', '0');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(gateChildren(project).filter(isRunning)).toEqual([]);
  });

  it('ends every process of a running gate when the run is cancelled', async () => {
    const project = makeSimProject('e2e-one-task', { verify: { commands: [STARTS_CHILDREN] } });
    const run = execa('node', [CLI, '1:executor', 'refuse empty names', '--agent', 'sim'], { cwd: project.dir, reject: false, stdin: 'ignore' });
    await waitFor('the gate to start its children', () => existsSync(join(project.dir, 'gate-fg.pid')) && readFileSync(join(project.dir, 'gate-fg.pid'), 'utf8').trim() !== '');
    const children = gateChildren(project);
    expect((await project.team('cancel')).exitCode).toBe(0);
    const result = await run;
    expect(result.exitCode, String(result.stderr)).toBe(3);
    expect(children.filter(isRunning)).toEqual([]);
  });

  it('streams the whole output to gates/ and keeps only a bounded tail in the log', async () => {
    // 3 MB of numbered lines, then a last line the tail must hold.
    const project = makeSimProject('e2e-one-task', { verify: { commands: ['seq 1 400000; echo the very end; exit 1'] } });
    const result = await project.team('1:executor', 'refuse empty names', '--agent', 'sim', '--max-fix-loops', '0');
    expect(result.exitCode, result.stderr).toBe(1);
    const run = project.readRun();
    const dir = join(run.paths.runDir, 'gates');
    const [log] = readdirSync(dir).map((name) => readFileSync(join(dir, name), 'utf8'));
    expect(log!.startsWith('1\n2\n3\n')).toBe(true);
    expect(log!.endsWith('400000\nthe very end\n')).toBe(true);
    const [gates] = eventsOf(run.events, 'gates_result');
    expect(gates!.gates[0]!.output.length).toBeLessThanOrEqual(2_000);
    expect(gates!.gates[0]!.output.endsWith('the very end\n')).toBe(true);
  });
});

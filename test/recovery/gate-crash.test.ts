// A verify gate whose orchestrator is killed -9 while it runs: its process group is in the log
// (gate_spawned, before the gate runs), so `team cancel` and `team resume` stop what it left running.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRunning, readStat } from '../helpers/proc-groups.js';
import { makeRecoveryProject, removeRecoveryProjects, type RecoveryProject } from '../helpers/recovery-project.js';
import { killOrchestrator } from '../helpers/recovery-wait.js';
import { waitFor } from '../helpers/wait-event.js';

// The first time, notes its temporary folder (the fence's, in the gate's private folder), starts a
// child that would run for 10 minutes and waits for it; then passes.
const GATE = 'if [ -e gate-ran ]; then exit 0; fi; touch gate-ran; echo "$TMPDIR" > gate-tmp; sleep 600 & echo $! > gate-child.pid; echo child started; wait';

const children: number[] = [];

afterEach(async () => {
  // The gate's child is ours: ended here should the code under test have left it.
  for (const pid of children.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  await removeRecoveryProjects();
});

// A run killed -9 while its gate's child runs; returns the child's pid and the recorded group.
async function killedDuringGate(): Promise<{ project: RecoveryProject; child: number; gate: Record<string, unknown>; tmp: string }> {
  const project = makeRecoveryProject('quick', { config: { verify: { commands: [GATE] } } });
  const orchestrator = project.spawn('1:executor', 'a gate outlives its orchestrator', '--agent', 'sim');
  const pidFile = join(project.dir, 'gate-child.pid');
  const child = await waitFor('the gate to start its child', () => {
    if (orchestrator.exited) throw new Error('the run ended before its gate started a child');
    const text = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : '';
    return text === '' ? undefined : Number(text);
  });
  children.push(child);
  await killOrchestrator(orchestrator);
  const gate = project.events().find((e) => e.event === 'gate_spawned')!;
  expect(gate).toMatchObject({ iteration: 1, pass: 1, gate: 1, command: GATE });
  expect(readStat(child)?.pgid).toBe((gate.handle as { pgid: number }).pgid);
  expect(isRunning(child)).toBe(true);
  // The gate's private folder, outside the project: its fenced TMPDIR is inside it.
  const tmp = dirname(readFileSync(join(project.dir, 'gate-tmp'), 'utf8').trim());
  expect(tmp.startsWith(join(tmpdir(), 'teamline-gate-')), tmp).toBe(true);
  expect(existsSync(tmp)).toBe(true);
  return { project, child, gate, tmp };
}

describe('runtime/gates (a gate whose orchestrator was killed)', () => {
  it('is stopped, with what it started, by team cancel', { timeout: 240_000 }, async () => {
    const { project, child, gate, tmp } = await killedDuringGate();

    const cancelled = await project.team('cancel');

    expect(cancelled.exitCode, cancelled.stderr).toBe(0);
    expect(isRunning(child)).toBe(false);
    expect(isRunning((gate.handle as { pid: number }).pid)).toBe(false);
    // Its private folder goes with it (the killed orchestrator could not remove it).
    expect(existsSync(tmp)).toBe(false);
    expect((await project.statusJson()).status).toBe('cancelled');
  });

  it('is stopped by team resume, which runs the gate again', { timeout: 240_000 }, async () => {
    const { project, child, tmp } = await killedDuringGate();

    const resumed = await project.team('resume');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(isRunning(child)).toBe(false);
    expect(existsSync(tmp)).toBe(false);
    expect(project.events().filter((e) => e.event === 'gate_spawned')).toHaveLength(2);
    expect((await project.statusJson()).status).toBe('completed');
  });

  it('is stopped by team cancel when the log cannot be replayed (a torn event)', { timeout: 240_000 }, async () => {
    const { project, child, tmp } = await killedDuringGate();
    const torn = join(project.eventsDir(), project.eventNames().find((n) => /-tasks_assigned-/.test(n))!);
    writeFileSync(torn, readFileSync(torn, 'utf8').slice(0, 20));

    const cancelled = await project.team('cancel');

    expect(cancelled.exitCode, cancelled.stderr).toBe(0);
    expect(cancelled.stderr).toMatch(/ cancelled: its \d+ recorded worker\(s\) were stopped; cancelled by team cancel with a log that cannot be replayed \(damaged: events\/.*-tasks_assigned-/);
    expect(isRunning(child)).toBe(false);
    expect(existsSync(tmp)).toBe(false);
    expect((await project.statusJson()).status).toBe('cancelled');
  });
});

// The built CLI runs sim workers in tmux panes of a private server, then leaves nothing behind.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/sys/proc.js';
import { eventsOf, makeAgentProject, removeAgentProjects, scenarioPath, STUB_BIN, type AgentProject } from '../helpers/agent-project.js';
import { findLeftovers, findRunProcesses, killKeptServer, makeSocketDir, removeSocketDirs, serverOf, tmuxOf } from '../helpers/tmux-leftovers.js';
import type { TeamResult } from '../helpers/team.js';

// A tmux run on a loaded machine: panes, wrappers and node agents all start slowly.
const RUN_TIMEOUT_MS = 180_000;

const NOTHING_LEFT = { server: false, socket: false, processes: [] };

function simProject(socketDir: string, scenario: string): AgentProject {
  const project = makeAgentProject({ TMUX_TMPDIR: socketDir });
  project.writeConfig({ agents: { sim: { adapter: 'sim', scenario: scenarioPath(scenario) } } });
  return project;
}

afterAll(async () => {
  await removeAgentProjects();
  await removeSocketDirs();
});

describe('team --tmux', () => {
  describe('a 3-worker run', () => {
    let socketDir: string;
    let project: AgentProject;
    let result: TeamResult;

    beforeAll(async () => {
      socketDir = makeSocketDir();
      project = simProject(socketDir, 'three-workers');
      // Started from inside another tmux, as users do: the run must still use its own server only.
      const outerTmux = { TMUX: '/nonexistent/tmux-0/default,1,0', TMUX_PANE: '%0' };
      result = await project.team(['3:executor', 'add input validation to the API', '--agent', 'sim', '--tmux'], outerTmux);
    }, RUN_TIMEOUT_MS);

    it('completes and exits 0', () => {
      expect(result.exitCode, result.stderr).toBe(0);
      expect(eventsOf(project.readRun(), 'run_completed')).toHaveLength(1);
      expect(project.readRun().problems).toEqual([]);
    });

    it('leaves no pane, no server, no socket file and no process of the run', async () => {
      const runId = project.runId();
      expect(await findLeftovers(socketDir, runId)).toEqual(NOTHING_LEFT);
      expect((await tmuxOf(socketDir, runId, ['list-panes', '-a'])).exitCode).not.toBe(0);
    });

    it('records backend tmux, server, pane id and pid of each attempt before its task_finished', () => {
      const run = project.readRun();
      const runId = project.runId();
      const finished = eventsOf(run, 'task_finished');
      expect(finished.length).toBeGreaterThanOrEqual(5);
      for (const end of finished) {
        const spawned = eventsOf(run, 'attempt_spawned').filter((e) => e.task_id === end.task_id && e.attempt === end.attempt);
        expect(spawned, `${end.task_id} a${end.attempt}`).toHaveLength(1);
        const { handle, file } = spawned[0]!;
        expect(handle).toMatchObject({ backend: 'tmux', server: serverOf(runId), socketDir, window: spawned[0]!.worker });
        expect(handle.paneId).toMatch(/^%\d+$/);
        expect(handle.pid).toBeGreaterThan(1);
        expect(handle.pidStart).toBeGreaterThan(0);
        expect(file < end.file, `attempt_spawned of ${end.task_id} a${end.attempt} is written before its task_finished`).toBe(true);
      }
    });

    it('runs the three exec tasks on three workers, each in its own pane', () => {
      const run = project.readRun();
      const exec = eventsOf(run, 'attempt_spawned').filter((e) => ['t1', 't2', 't3'].includes(e.task_id));
      expect(exec).toHaveLength(3);
      expect(new Set(exec.map((e) => e.worker))).toEqual(new Set(['worker-1', 'worker-2', 'worker-3']));
      expect(new Set(exec.map((e) => e.handle.paneId)).size).toBe(3);
    });

    it('leaves none of the recorded pane processes running', () => {
      for (const { handle } of eventsOf(project.readRun(), 'attempt_spawned')) {
        expect(isProcessAlive(handle.pid, handle.pidStart), `pid ${handle.pid}`).toBe(false);
      }
    });
  });

  describe('with --keep-panes', () => {
    let socketDir: string;
    let project: AgentProject;
    let result: TeamResult;
    let runId: string;

    beforeAll(async () => {
      socketDir = makeSocketDir();
      project = simProject(socketDir, 'one-task');
      result = await project.team(['1:executor', 'add input validation to the API', '--agent', 'sim', '--tmux', '--keep-panes']);
      runId = project.runId();
    }, RUN_TIMEOUT_MS);

    afterAll(async () => {
      if (runId) await killKeptServer(socketDir, runId);
    });

    it('completes and keeps the run\'s server with the dead panes of its workers', async () => {
      expect(result.exitCode, result.stderr).toBe(0);
      const leftovers = await findLeftovers(socketDir, runId);
      expect(leftovers).toMatchObject({ server: true, socket: true });
      const panes = await tmuxOf(socketDir, runId, ['list-panes', '-a', '-F', '#{window_name} #{pane_dead}']);
      expect(panes.exitCode, panes.stderr).toBe(0);
      const lines = panes.stdout.trim().split('\n');
      expect(lines).toEqual(expect.arrayContaining(['lead 1', 'worker-1 1']));
      expect(lines.every((line) => line.endsWith(' 1')), panes.stdout).toBe(true);
    });

    it('keeps no agent process running, only the tmux server', () => {
      const processes = findRunProcesses(runId);
      expect(processes.every((p) => p.cmdline.includes(serverOf(runId))), JSON.stringify(processes)).toBe(true);
    });

    it('prints the tmux command that attaches to the run with `team attach --print`', async () => {
      // The run's own TMUX_TMPDIR, whatever the shell that asks has.
      const attach = await project.team(['attach', '--print'], { TMUX_TMPDIR: '/nonexistent' });
      expect(attach.exitCode, attach.stderr).toBe(0);
      expect(attach.stdout).toBe(`env TMUX_TMPDIR=${socketDir} tmux -L ${serverOf(runId)} attach-session -t team\n`);
      expect((await tmuxOf(socketDir, runId, ['has-session', '-t', 'team'])).exitCode).toBe(0);
    });

    it('leaves nothing once the test kills the kept server and removes its socket', async () => {
      await killKeptServer(socketDir, runId);
      expect(await findLeftovers(socketDir, runId)).toEqual(NOTHING_LEFT);
    });
  });

  describe('with an agent CLI', () => {
    afterEach(async () => {
      await removeAgentProjects();
      await removeSocketDirs();
    });

    it('runs claude in panes, records its session ids and sums its cost', async () => {
      const socketDir = makeSocketDir();
      const project = makeAgentProject({ TMUX_TMPDIR: socketDir, PATH: `${STUB_BIN}:${process.env.PATH}` });
      const result = await project.team(['1:executor', 'add input validation to the API', '--agent', 'claude', '--tmux']);
      expect(result.exitCode, result.stderr).toBe(0);
      const run = project.readRun();
      expect(eventsOf(run, 'attempt_spawned').every((e) => e.handle.backend === 'tmux')).toBe(true);
      const status = await project.statusJson();
      expect(status.tasks.map((t) => t.status)).toEqual(status.tasks.map(() => 'completed'));
      for (const task of status.tasks) expect(task.attempts[0]!.sessionId, task.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
      expect(status.usage.run.costUsd).toBeCloseTo(status.tasks.length * 0.0123, 9);
      expect(status.usage.run.tokens).toEqual({ input: status.tasks.length * 1000, output: status.tasks.length * 200, cached: status.tasks.length * 500 });
      expect(await findLeftovers(socketDir, project.runId())).toEqual(NOTHING_LEFT);
    }, RUN_TIMEOUT_MS);
  });

  describe('team attach', () => {
    afterEach(removeAgentProjects);

    it('refuses with exit 2 a run that had no tmux workers', async () => {
      const project = simProject(makeSocketDir(), 'one-task');
      const run = await project.team(['1:executor', 'add input validation to the API', '--agent', 'sim']);
      expect(run.exitCode, run.stderr).toBe(0);
      const attach = await project.team(['attach', '--print']);
      expect(attach.exitCode).toBe(2);
      expect(attach.stderr).toContain(`run ${project.runId()} has no tmux workers`);
      expect(attach.stdout).toBe('');
    }, RUN_TIMEOUT_MS);
  });
});

// `team attach` lands on an overview window that tiles every worker's window of a live tmux run.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../../helpers/project.js';
import { allRoles, eventsOf, makeSimProject, shellAgent, type SimProject } from '../../helpers/sim-project.js';
import { runTeam, type TeamResult } from '../../helpers/team.js';
import { makeTmuxSandbox, runServerName, type TmuxSandbox } from '../../helpers/tmux-sandbox.js';

// An executor that prints a line in its pane, then works until the test creates `release` in the project.
const GATED_EXECUTOR = shellAgent(
  'echo "busy with $TEAM_TASK_ID"; i=0; while [ ! -e "$TEAM_PROJECT_DIR/release" ]; do i=$((i+1)); [ $i -gt 3000 ] && exit 9; sleep 0.05; done; ' +
    `printf '%s' '{"status":"completed","summary":"released","evidence":"released"}' > "$TEAM_RESULT_FILE"`,
);
const SCENARIO = { name: 'overview', plan: { tasks: [{ id: 'alpha', title: 'A', acceptance: ['a'] }, { id: 'beta', title: 'B', acceptance: ['b'] }] } };
const POLL_LIMIT_MS = 60_000;

afterAll(removeProjects);

describe('tmux overview', () => {
  let sandbox: TmuxSandbox;
  let project: SimProject;
  let running: Promise<TeamResult>;
  let server: string;
  let userPane: number;
  const team = (...args: string[]) => runTeam(args, { cwd: project.dir, env: { TMUX_TMPDIR: sandbox.dir } });

  beforeAll(async () => {
    sandbox = makeTmuxSandbox();
    userPane = await sandbox.startUserSession();
    project = makeSimProject(SCENARIO, { agents: { gated: GATED_EXECUTOR }, roles: allRoles('sim', { executor: 'gated' }) });
    running = team('2:executor', 'show the whole team', '--tmux');
    const deadline = Date.now() + POLL_LIMIT_MS;
    for (;;) {
      const spawned = (() => {
        try {
          return eventsOf(project.readRun().events, 'attempt_spawned');
        } catch {
          return [];
        }
      })();
      if (spawned.filter((e) => e.task_id === 'alpha' || e.task_id === 'beta').length === 2) break;
      if (Date.now() > deadline) throw new Error('the two workers never started');
      await sleep(200);
    }
    server = runServerName(project.readRun().runId);
  }, 90_000);

  afterAll(async () => {
    project?.write('release', 'go\n');
    await running;
    await sandbox?.cleanup();
  });

  it('tiles one read-only view per worker (the lead too) in a window named overview, made current', async () => {
    const attach = await team('attach', '--print');
    expect(attach.exitCode, attach.stderr).toBe(0);
    expect(attach.stderr).toBe('overview window: lead, worker-1, worker-2 (each worker also has its own window: prefix + w lists them)\n');
    const current = await sandbox.tmux(server, 'display-message', '-p', '-t', 'team', '#{window_name}');
    expect(current.stdout.trim()).toBe('overview');
    const panes = await sandbox.tmux(server, 'list-panes', '-t', '=team:=overview', '-F', '#{pane_index} #{pane_dead}');
    expect(panes.stdout.trim().split('\n')).toEqual(['0 0', '1 0', '2 0']);
    const workers = await sandbox.tmux(server, 'list-windows', '-t', 'team', '-F', '#{window_name}');
    expect(workers.stdout.trim().split('\n')).toEqual(expect.arrayContaining(['lead', 'worker-1', 'worker-2', 'overview']));
  });

  it('shows each worker\'s pane output in its tile', async () => {
    const deadline = Date.now() + POLL_LIMIT_MS;
    let tiles: string[] = [];
    while (Date.now() < deadline) {
      tiles = await Promise.all([0, 1, 2].map(async (i) => (await sandbox.tmux(server, 'capture-pane', '-p', '-t', `=team:=overview.${i}`)).stdout));
      if (tiles.join('\n').includes('busy with alpha') && tiles.join('\n').includes('busy with beta')) break;
      await sleep(200);
    }
    expect(tiles.some((t) => t.includes('busy with alpha')), tiles.join('\n----\n')).toBe(true);
    expect(tiles.some((t) => t.includes('busy with beta')), tiles.join('\n----\n')).toBe(true);
  });

  it('builds the overview again on a second attach, and the run ends cleanly with it', async () => {
    const again = await team('attach', '--print');
    expect(again.exitCode, again.stderr).toBe(0);
    const windows = await sandbox.tmux(server, 'list-windows', '-t', 'team', '-F', '#{window_name}');
    expect(windows.stdout.trim().split('\n').filter((w) => w === 'overview')).toHaveLength(1);
    project.write('release', 'go\n');
    const result = await running;
    expect(result.exitCode, result.stderr).toBe(0);
    expect((await sandbox.tmux(server, 'list-sessions')).ok).toBe(false);
    expect((await sandbox.tmux(sandbox.userServer, 'has-session', '-t', 'mine')).ok).toBe(true);
    expect(() => process.kill(userPane, 0)).not.toThrow();
  });
});

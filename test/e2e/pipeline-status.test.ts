// `team status` read from another process, while a run is live and after it ended.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects, type StatusJson } from '../helpers/project.js';
import { allRoles, makeSimProject, shellAgent, type SimProject } from '../helpers/sim-project.js';
import type { TeamResult } from '../helpers/team.js';

// An executor that works until the test creates `release` in the project (or gives up after ~30 s).
const GATED_EXECUTOR = shellAgent(
  'i=0; while [ ! -e "$TEAM_PROJECT_DIR/release" ]; do i=$((i+1)); [ $i -gt 600 ] && exit 9; sleep 0.05; done; ' +
    `printf '%s' '{"status":"completed","summary":"released","evidence":"the test released it"}' > "$TEAM_RESULT_FILE"`,
);

// How long the test polls for the live attempt before giving up.
const POLL_LIMIT_MS = 30_000;

afterAll(removeProjects);

// True once the latest run's log says the attempt of task `slow` was spawned (a cheap look, no process).
function slowSpawned(project: SimProject): boolean {
  const current = join(project.dir, '.team', 'runs', 'current');
  if (!existsSync(current)) return false;
  const events = join(project.dir, '.team', 'runs', readFileSync(current, 'utf8').trim(), 'events');
  return existsSync(events) && readdirSync(events).some((name) => name.includes('-attempt_spawned-slow-a1-'));
}

// The first `team status --json`, from another process, that shows task `slow` with a running attempt.
async function pollUntilSlowRuns(project: SimProject): Promise<StatusJson | undefined> {
  const deadline = Date.now() + POLL_LIMIT_MS;
  while (Date.now() < deadline) {
    if (slowSpawned(project)) {
      const result = await project.team('status', '--json');
      const status = JSON.parse(result.stdout) as StatusJson;
      if (status.tasks.some((t) => t.id === 'slow' && t.attempts.some((a) => a.status === 'running'))) return status;
    }
    await sleep(25);
  }
  return undefined;
}

describe('pipeline status', () => {
  let project: SimProject;
  let live: StatusJson | undefined;
  let result: TeamResult;

  beforeAll(async () => {
    project = makeSimProject('e2e-live-status', { agents: { gated: GATED_EXECUTOR }, roles: allRoles('sim', { executor: 'gated' }) });
    const running = project.team('1:executor', 'do the slow thing');
    try {
      live = await pollUntilSlowRuns(project);
    } finally {
      project.write('release', 'go\n');
      result = await running;
    }
  });

  it('shows a live run as running in team-exec, with a running attempt, to another process', () => {
    expect(live, 'status --json never showed the slow attempt running').toBeDefined();
    expect(live!.status).toBe('running');
    expect(live!.stage).toBe('team-exec');
    const slow = live!.tasks.find((t) => t.id === 'slow')!;
    expect(slow.status).toBe('running');
    expect(slow.attempts).toMatchObject([{ attempt: 1, status: 'running', stage: 'team-exec', agent: 'gated', worker: 'worker-1' }]);
    expect(live!.tasks.find((t) => t.id === 'plan')!.status).toBe('completed');
  });

  it('lets the run complete once the slow task finishes', () => {
    expect(result.exitCode, result.stderr).toBe(0);
  });

  it('shows the stage, the tasks and their attempts of the finished run', async () => {
    const human = await project.team('status');
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toMatch(/^ {2}status completed/m);
    expect(human.stdout).toMatch(/^ {2}stage {2}team-verify$/m);
    expect(human.stdout).toMatch(/^tasks \(1 planned, 3 listed with the stages' own\):$/m);
    for (const task of ['plan', 'verify-1']) expect(human.stdout).toMatch(new RegExp(`^ {2}${task} +completed$`, 'm'));
    expect(human.stdout).toMatch(/^ {2}slow +completed +Takes as long as the test wants$/m);
    expect(human.stdout).toMatch(/^ {4}a1 completed · team-exec · worker-1 · agent gated · /m);
    expect(human.stdout).toContain('needs attention: nothing');
  });

  it('shows every attempt of the finished run terminal and certain in JSON', () => {
    const status = project.statusView();
    expect(status.status).toBe('completed');
    expect(status.attention.uncertain).toEqual([]);
    for (const task of status.tasks) for (const attempt of task.attempts) expect(attempt, task.id).toMatchObject({ status: 'completed', uncertain: false });
  });
});

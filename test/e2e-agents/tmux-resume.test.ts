// A tmux run whose orchestrator is killed with SIGKILL during an exec attempt, then `team resume`:
// the live pane is re-adopted, not started again, and no server of the run is left in any TMUX_TMPDIR.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf, makeAgentProject, removeAgentProjects, scenarioPath, type AgentProject } from '../helpers/agent-project.js';
import { waitForEvent } from '../helpers/wait-event.js';
import { findLeftovers, makeSocketDir, removeSocketDirs } from '../helpers/tmux-leftovers.js';

const RUN_TIMEOUT_MS = 180_000;

const NOTHING_LEFT = { server: false, socket: false, processes: [] };

// Starts a tmux run whose t1 works for 4 s and kills its orchestrator once t1's pane is recorded.
async function crashDuringExec(project: AgentProject): Promise<void> {
  const running = project.start(['1:executor', 'add input validation to the API', '--agent', 'sim', '--tmux']);
  await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't1' && e.attempt === 1);
  process.kill(running.pid, 'SIGKILL');
  const killed = await running.result;
  expect(killed.exitCode).not.toBe(0);
}

// Attempts the sim did the work of, as `task#attempt`, from its ledger.
function ledgerOf(project: AgentProject): string[] {
  const file = join(project.dir, '.team/sim-ledger.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => {
    const entry = JSON.parse(line) as { task: string; attempt: number };
    return `${entry.task}#${entry.attempt}`;
  });
}

afterEach(async () => {
  await removeAgentProjects();
  await removeSocketDirs();
});

describe('team resume of a tmux run', () => {
  it('re-adopts the live pane of the interrupted attempt instead of starting it again', async () => {
    const socketDir = makeSocketDir();
    const project = makeAgentProject({ TMUX_TMPDIR: socketDir });
    project.writeConfig({ agents: { sim: { adapter: 'sim', scenario: scenarioPath('slow-exec') } } });
    await crashDuringExec(project);
    const resumed = await project.team(['resume']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const run = project.readRun();
    expect(eventsOf(run, 'run_completed')).toHaveLength(1);
    const spawned = eventsOf(run, 'attempt_spawned').filter((e) => e.task_id === 't1');
    expect(spawned.map((e) => `a${e.attempt} ${e.handle.paneId}`), 'attempt_spawned events of t1').toHaveLength(1);
    expect(ledgerOf(project).filter((id) => id === 't1#1'), 'the sim ledger lines of t1 a1').toHaveLength(1);
    expect(await findLeftovers(socketDir, project.runId())).toEqual(NOTHING_LEFT);
  }, RUN_TIMEOUT_MS);

  it('leaves no server of the run when resumed from a shell with another TMUX_TMPDIR', async () => {
    const first = makeSocketDir();
    const second = makeSocketDir();
    const project = makeAgentProject({ TMUX_TMPDIR: first });
    project.writeConfig({ agents: { sim: { adapter: 'sim', scenario: scenarioPath('slow-exec') } } });
    await crashDuringExec(project);
    const resumed = await project.team(['resume'], { TMUX_TMPDIR: second });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const runId = project.runId();
    const [inFirst, inSecond] = [await findLeftovers(first, runId), await findLeftovers(second, runId)];
    expect({
      firstServer: inFirst.server,
      firstSocket: inFirst.socket,
      secondServer: inSecond.server,
      secondSocket: inSecond.socket,
      processes: inSecond.processes,
    }).toEqual({ firstServer: false, firstSocket: false, secondServer: false, secondSocket: false, processes: [] });
  }, RUN_TIMEOUT_MS);
});

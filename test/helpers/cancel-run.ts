// A project whose run hangs in team-exec, driven with the built CLI as separate processes (as a user
// would), and what a cancel test looks at afterwards: the run's events, the workers' recorded handles.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { killOwnedGroups, readStat } from './proc-groups.js';
import { makeProject, removeProjects, type TestProject } from './project.js';
import { CLI, ROOT, runTeam, type TeamResult } from './team.js';
import { waitFor } from './wait-event.js';

export const SCENARIOS = join(ROOT, 'test/fixtures/scenarios');

// Every pipeline role runs on the headless sim; the role `panes` runs on the same sim in tmux.
const PIPELINE_ROLES = ['planner', 'analyst', 'executor', 'debugger', 'verifier', 'architect'];

export interface RunEvent {
  event: string;
  at: string;
  file: string;
  task_id?: string;
  attempt?: number;
  status?: string;
  [field: string]: unknown;
}

export interface Handle {
  backend: 'process' | 'tmux';
  pid: number;
  pidStart: number;
  pgid: number;
  server?: string;
  paneId?: string;
}

export interface StartedRun {
  pid: number;
  /** Resolves when the orchestrator exits, with the time it did. */
  exited: Promise<TeamResult & { endedAt: number }>;
}

export interface CancelProject extends TestProject {
  env: Record<string, string>;
  /** `team <args>` in the project with the test's environment; waits for it to exit. */
  run(...args: string[]): Promise<TeamResult>;
  /** `team <args>` started and left running (an orchestrator). */
  start(...args: string[]): StartedRun;
  /** The latest run's id (`.team/runs/current`), once there is one. */
  currentRun(): string | undefined;
  events(runId: string): RunEvent[];
  /** The handles of every attempt_spawned event of the run. */
  handles(runId: string): Handle[];
  /** Waits until each task has a started worker that printed its start line; returns the run id. */
  waitForWorkers(tasks: string[], timeoutMs?: number): Promise<string>;
}

// Orchestrators started here, by pid and start time (a pid alone may name another process later).
const orchestrators: Array<{ pid: number; start: number | undefined }> = [];
const made: CancelProject[] = [];

// A project with both agents configured; `scenario` is a file of test/fixtures/scenarios.
export function makeCancelProject(options: { scenario: string; graceMs: number; env?: Record<string, string> }): CancelProject {
  const project = makeProject();
  const scenario = join(SCENARIOS, options.scenario);
  const config = {
    agents: { sim: { adapter: 'sim', scenario }, simtmux: { adapter: 'sim', scenario, tmux: true } },
    roles: { ...Object.fromEntries(PIPELINE_ROLES.map((role) => [role, 'sim'])), panes: 'simtmux' },
    team: { shutdownTimeoutMs: options.graceMs },
  };
  project.write('.team/config.json', JSON.stringify(config, null, 2));
  const env = options.env ?? {};
  const events = (runId: string) => readEvents(project.eventsDir(runId));
  const handles = (runId: string) => events(runId).filter((e) => e.event === 'attempt_spawned').map((e) => e.handle as Handle);
  const currentRun = () => {
    const file = join(project.dir, '.team/runs/current');
    return existsSync(file) ? readFileSync(file, 'utf8').trim() || undefined : undefined;
  };
  const cancelProject: CancelProject = {
    ...project,
    env,
    run: (...args) => runTeam(args, { cwd: project.dir, env }),
    start: (...args) => startTeam(project.dir, args, env),
    currentRun,
    events,
    handles,
    async waitForWorkers(tasks, timeoutMs = 60_000) {
      let runId: string | undefined;
      await waitFor(`workers ${tasks.join(', ')} to start`, () => {
        runId ??= currentRun();
        if (!runId) return false;
        const spawned = new Set(handlesByTask(events(runId)));
        return tasks.every((task) => spawned.has(task) && startLineShown(join(project.runDir(runId!), 'attempts', task, 'a1')));
      }, timeoutMs);
      return runId!;
    },
  };
  made.push(cancelProject);
  return cancelProject;
}

// Removes the projects; first kills any orchestrator or worker group a failed test left behind.
export async function cleanUpCancelProjects(): Promise<void> {
  for (const { pid, start } of orchestrators.splice(0)) {
    if (start === undefined || readStat(pid)?.startTime !== start) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already exited.
    }
  }
  for (const project of made.splice(0)) {
    const runs = join(project.dir, '.team/runs');
    const runIds = existsSync(runs) ? readdirSync(runs).filter((name) => name !== 'current') : [];
    killOwnedGroups(runIds.flatMap((runId) => project.handles(runId)));
  }
  removeProjects();
}

// Milliseconds between the first event named `from` and the first named `to` after it, by their `at`.
export function spanBetween(events: RunEvent[], from: string, to: string): number {
  const start = events.find((e) => e.event === from);
  const end = events.find((e) => e.event === to && e.file > (start?.file ?? ''));
  if (!start || !end) throw new Error(`no ${from} followed by ${to} in the log`);
  return Date.parse(end.at) - Date.parse(start.at);
}

function startTeam(cwd: string, args: string[], env: Record<string, string>): StartedRun {
  const child = execa('node', [CLI, ...args], { cwd, env, reject: false, stdin: 'ignore' });
  if (child.pid === undefined) throw new Error('the orchestrator did not start');
  orchestrators.push({ pid: child.pid, start: readStat(child.pid)?.startTime });
  const exited = child.then((result) => ({ exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr), endedAt: Date.now() }));
  return { pid: child.pid, exited };
}

// Parsed events of a run, in the order written; a file being renamed into place is skipped.
function readEvents(dir: string): RunEvent[] {
  if (!existsSync(dir)) return [];
  const events: RunEvent[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json')).sort()) {
    try {
      events.push({ ...(JSON.parse(readFileSync(join(dir, file), 'utf8')) as RunEvent), file });
    } catch {
      // Not there any more, or not ours to read.
    }
  }
  return events;
}

function handlesByTask(events: RunEvent[]): string[] {
  return events.filter((e) => e.event === 'attempt_spawned').map((e) => String(e.task_id));
}

// The sim prints its start line once its signal handlers and children are in place.
function startLineShown(attemptDir: string): boolean {
  try {
    return readFileSync(join(attemptDir, 'output.log'), 'utf8').includes('started by');
  } catch {
    return false;
  }
}

// Detached runs in a test project: a gated executor that works until the test writes `release`,
// the detached orchestrator read from the run's lock, and a cleanup that cancels what is left.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allRoles, makeSimProject, shellAgent, type SimProject } from './sim-project.js';
import { waitFor } from './wait-event.js';

// Works until `release` exists in the project (gives up after ~2 minutes), then completes.
export const GATED_EXECUTOR = shellAgent(
  'i=0; while [ ! -e "$TEAM_PROJECT_DIR/release" ]; do i=$((i+1)); [ $i -gt 2400 ] && exit 9; sleep 0.05; done; ' +
    `printf '%s' '{"status":"completed","summary":"released","evidence":"the test released it"}' > "$TEAM_RESULT_FILE"`,
);

const started: SimProject[] = [];

// A project whose executor is gated; every other role is the sim.
export function makeGatedProject(): SimProject {
  const project = makeSimProject('e2e-live-status', { agents: { gated: GATED_EXECUTOR }, roles: allRoles('sim', { executor: 'gated' }) });
  started.push(project);
  return project;
}

// A project whose runs a test starts detached: endDetachedRuns ends what it left running.
export function followDetached<P extends SimProject>(project: P): P {
  started.push(project);
  return project;
}

// The pid in the run's lock.json, if the file is there.
export function lockPid(project: SimProject, runId: string): number | undefined {
  const file = join(project.runDir(runId), 'lock.json');
  if (!existsSync(file)) return undefined;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

// True while a process with this pid exists.
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// The process group of a live pid, from /proc.
export function pgidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

// Releases every gated agent, cancels every run that still has a live orchestrator, and waits for
// each orchestrator to be gone: one that is still ending its run (its last records, the checkpoint)
// would write into a project the test is removing.
export async function endDetachedRuns(): Promise<void> {
  for (const project of started.splice(0)) {
    project.write('release', 'go\n');
    const runs = join(project.dir, '.team', 'runs', 'current');
    if (!existsSync(runs)) continue;
    const runId = readFileSync(runs, 'utf8').trim();
    const pid = lockPid(project, runId);
    if (pid === undefined || !alive(pid)) continue;
    if (!ended(project, runId)) await project.team('cancel', '--run', runId, '--force');
    await waitFor(`the orchestrator of run ${runId} (pid ${pid}) to end`, () => !alive(pid));
  }
}

// Whether the run's log holds its end.
function ended(project: SimProject, runId: string): boolean {
  return project.listEvents(runId).some((name) => /-run_(completed|failed|cancelled|stopped)-/.test(name));
}

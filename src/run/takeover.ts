// A new orchestrator takes over a run from its log alone: lock, replay, a session that knows
// every worker the log recorded. Used by `team resume` and by `team cancel` when the old one is gone;
// on the PostgreSQL store, from any machine.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TeamConfig } from '../../config/schema.js';
import { TEMP_PREFIX } from '../sys/atomic.js';
import type { LogDigest } from '../log/digest.js';
import type { RunFiles } from '../log/read.js';
import { keepStampsAfter } from '../log/time.js';
import type { RunPaths } from '../log/write.js';
import { foldOf, viewOf, type RunView } from '../log/fold/fold.js';
import type { FoldState } from '../log/fold/types.js';
import { fetchIntoBranch } from '../git/remote.js';
import { UsageError } from '../sys/errors.js';
import { foldInput, type RunStore } from '../store/types.js';
import { holdRun } from './hold.js';
import { holdCancelSignals } from '../session/held-signals.js';
import { assertRunsWritable } from './writable.js';
import type { Progress } from '../session/progress.js';
import { readForReplay, writeMachineSnapshot } from '../session/machine-snapshot.js';
import { replayRun, type Replay } from '../session/replay.js';
import { saveFold } from '../log/read-view.js';
import type { RunSession } from '../session/session.js';

// A temporary file this old in events/ or handoffs/ is a write its dead orchestrator never finished.
const TORN_AGE_MS = 5_000;

// With the lock held, the previous orchestrator is gone: its half-written files are removed, never read.
function removeTornWrites(paths: RunPaths): void {
  for (const dir of [paths.eventsDir, paths.handoffsDir]) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const file = join(dir, name);
      try {
        if (Date.now() - statSync(file).mtimeMs > TORN_AGE_MS) rmSync(file, { force: true });
      } catch {
        // Gone already.
      }
    }
  }
}

type ProjectConfig = { dir: string; config: TeamConfig; configFile?: string };

export interface Takeover {
  session: RunSession;
  replay: Replay;
  view: RunView;
  release: () => Promise<void>;
}

// Takes the run's writer lock in its store and rebuilds its state; throws (changing nothing) on a
// determinism violation.
// `choose` picks the config the run goes on with, from its fold, before anything is written (resume.ts).
export async function takeOver(store: RunStore, runId: string, project: ProjectConfig, progress: Progress, command: string, choose?: (st: FoldState) => Omit<ProjectConfig, 'dir'>): Promise<Takeover> {
  const files = store.kind === 'files';
  const paths = store.paths(runId);
  if (files) assertRunsWritable(paths.projectDir, paths.runDir);
  const hold = await holdRun(store, runId, command, project.config);
  // From here a cancel asks this process (a request and SIGTERM): held until the run listens.
  const heldSignals = holdCancelSignals();
  const release = async () => {
    heldSignals.release();
    await hold.release();
  };
  try {
    const { read, digest, snapshot }: Partial<ReturnType<typeof readFiles>> & { read: RunFiles } = files ? readFiles(paths) : { read: foldInput(await store.read(runId)) };
    const st = foldOf(read.run, read.events);
    const { started } = st;
    if (!started) throw new UsageError(files ? `run ${runId} was not started by the pipeline (no run_started event): it is driven with \`team state\` commands` : `run ${runId} in the store was not started by the pipeline (no run_started event)`);
    const { config, configFile } = choose ? choose(st) : project;
    const replay = replayRun(read.events, snapshot);
    // The whole log of the files was read for the replay anyway: once it replays, its folds are saved
    // as the run's snapshots.
    const view = files ? saveFold(paths, st, read, project.dir) : viewOf(st, read, project.dir);
    if (digest && replay.pending.length === 0) saveReplaySnapshot(paths, replay, digest);
    // Another clone: the integration branch is the remote's, with every merge made so far.
    const remote = started.isolation?.mode === 'worktree' ? started.isolation.remote : undefined;
    if (remote !== undefined && started.isolation?.branch) await fetchIntoBranch(project.dir, remote, started.isolation.branch);
    const session = hold.session({
      runId,
      projectDir: project.dir,
      config,
      configFile,
      progress,
      // On the store the attempts run on team workers.
      mode: files ? started.workerMode : 'headless',
      keepPanes: files && started.keepPanes,
      workers: started.workers,
      run: read.run,
      folded: { st, names: read.eventNames ?? read.events.map((e) => e.file) },
      digest,
      sessionIds: { session: started.session, parent_session: started.parent_session },
      limits: started.limits,
      heldSignals,
    });
    return { session, replay, view, release };
  } catch (error) {
    await release();
    throw error;
  }
}

// With the lock held, the run's files as the replay reads them: torn writes of the orchestrator that
// died removed, through the machine's snapshot where it holds, new stamps after the newest name.
function readFiles(paths: RunPaths): { read: RunFiles; digest: LogDigest; snapshot: ReturnType<typeof readForReplay>['snapshot'] } {
  removeTornWrites(paths);
  const { files, digest, snapshot } = readForReplay(paths);
  keepStampsAfter(newestEventName(paths));
  return { read: files, digest, snapshot };
}

// The replayed machine, which has seen every event read: a failure costs only speed.
function saveReplaySnapshot(paths: RunPaths, replay: Replay, digest: LogDigest): void {
  try {
    writeMachineSnapshot(paths, { value: replay.snapshot.value, context: replay.snapshot.context }, digest.position());
  } catch {
    // The next resume replays the whole log.
  }
}

// The name that sorts last in events/ (valid or not): new events must sort after it.
function newestEventName(paths: RunPaths): string {
  try {
    return readdirSync(paths.eventsDir).filter((name) => !name.startsWith('.')).sort().at(-1) ?? '';
  } catch {
    return '';
  }
}

// A new orchestrator takes over a run from its log alone: lock, replay, a session that knows
// every worker the log recorded. Used by `team resume` and by `team cancel` when the old one is gone;
// on the PostgreSQL store, from any machine.
import type { TeamConfig } from '../../config/schema.js';
import type { LogDigest } from '../log/digest.js';
import type { RunPaths } from '../log/write.js';
import { foldOf, type RunView } from '../log/fold/fold.js';
import type { FoldState } from '../log/fold/types.js';
import { fetchIntoBranch } from '../git/remote.js';
import { UsageError } from '../sys/errors.js';
import type { RunStore } from '../store/types.js';
import { faceOf } from './face.js';
import { liveTelemetry } from './telemetry.js';
import { holdCancelSignals } from '../session/held-signals.js';
import type { Progress } from '../session/progress.js';
import { writeMachineSnapshot } from '../session/machine-snapshot.js';
import { replayRun, type Replay } from '../session/replay.js';
import type { RunSession } from '../session/session.js';

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
  const face = faceOf(store);
  const paths = store.paths(runId);
  face.assertWritable(paths.projectDir, paths.runDir);
  const hold = await face.hold(runId, command, project.config);
  // From here a cancel asks this process (a request and SIGTERM): held until the run listens.
  const heldSignals = holdCancelSignals();
  const release = async () => {
    heldSignals.release();
    await hold.release();
  };
  try {
    const { read, digest, snapshot } = await face.readLog(paths, runId);
    const st = foldOf(read.run, read.events);
    const { started } = st;
    if (!started) throw new UsageError(face.notStarted(runId));
    const { config, configFile } = choose ? choose(st) : project;
    const replay = replayRun(read.events, snapshot);
    const view = face.viewAfterReplay(paths, st, read, project.dir);
    if (digest && replay.pending.length === 0) saveReplaySnapshot(paths, replay, digest);
    // Another clone: the integration branch is the remote's, with every merge made so far.
    const remote = started.isolation?.mode === 'worktree' ? started.isolation.remote : undefined;
    if (remote !== undefined && started.isolation?.branch) await fetchIntoBranch(project.dir, remote, started.isolation.branch);
    const observe = liveTelemetry(runId, config, progress, read.events);
    const session = hold.session({
      ...(observe && { observe }),
      runId,
      projectDir: project.dir,
      config,
      configFile,
      progress,
      ...face.workers(started),
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

// The replayed machine, which has seen every event read: a failure costs only speed.
function saveReplaySnapshot(paths: RunPaths, replay: Replay, digest: LogDigest): void {
  try {
    writeMachineSnapshot(paths, { value: replay.snapshot.value, context: replay.snapshot.context }, digest.position());
  } catch {
    // The next resume replays the whole log.
  }
}

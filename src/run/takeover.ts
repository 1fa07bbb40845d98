// A new orchestrator takes over a run from its log alone: lock, replay, a session that knows
// every worker the log recorded. Used by `team resume` and by `team cancel` when the old one is gone.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TeamConfig } from '../../config/schema.js';
import { TEMP_PREFIX } from '../sys/atomic.js';
import type { EventOf } from '../log/schema.js';
import type { LogDigest } from '../log/digest.js';
import { keepStampsAfter } from '../log/time.js';
import type { RunPaths } from '../log/write.js';
import { foldEvents, newFold, type RunView } from '../log/fold.js';
import { UsageError } from '../sys/errors.js';
import { makeRunLogger } from '../sys/logger.js';
import { acquireLock } from '../store/file-lock.js';
import { assertRunsWritable } from './writable.js';
import type { Progress } from './progress.js';
import { readForReplay, writeMachineSnapshot } from './machine-snapshot.js';
import { replayRun, type Replay } from './replay.js';
import { saveFold } from '../log/read-view.js';
import { makeSession, type RunSession } from './session.js';

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

export interface Takeover {
  session: RunSession;
  replay: Replay;
  view: RunView;
  release: () => void;
}

// Takes the run's lock and rebuilds its state; throws (changing nothing) on a determinism violation.
export function takeOver(paths: RunPaths & { runId: string }, project: { dir: string; config: TeamConfig; configFile?: string }, progress: Progress, command: string): Takeover {
  assertRunsWritable(paths.projectDir, paths.runDir);
  const release = acquireLock(paths, command);
  try {
    removeTornWrites(paths);
    const { files, digest, snapshot } = readForReplay(paths);
    keepStampsAfter(newestEventName(paths));
    const st = newFold(files.run);
    foldEvents(st, files.events);
    const started = files.events.find((e): e is EventOf<'run_started'> & { file: string } => e.event === 'run_started');
    if (!started) throw new UsageError(`run ${paths.runId} was not started by the pipeline (no run_started event): it is driven with \`team state\` commands`);
    const replay = replayRun(files.events, snapshot);
    // The whole log was read for the replay anyway: once it replays, its folds are saved as the run's snapshots.
    const view = saveFold(paths, st, files, project.dir);
    if (replay.pending.length === 0) saveReplaySnapshot(paths, replay, digest);
    const session = makeSession({
      runId: paths.runId,
      paths,
      projectDir: project.dir,
      config: project.config,
      configFile: project.configFile,
      log: makeRunLogger(paths.logFile),
      progress,
      mode: started.workerMode,
      keepPanes: started.keepPanes,
      workers: started.workers,
      run: files.run,
      events: files.events,
      folded: { st, events: files.events, names: files.eventNames ?? files.events.map((e) => e.file) },
      digest,
      sessionIds: { session: started.session, parent_session: started.parent_session },
      limits: started.limits,
    });
    return { session, replay, view, release };
  } catch (error) {
    release();
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

// The name that sorts last in events/ (valid or not): new events must sort after it.
function newestEventName(paths: RunPaths): string {
  try {
    return readdirSync(paths.eventsDir).filter((name) => !name.startsWith('.')).sort().at(-1) ?? '';
  } catch {
    return '';
  }
}

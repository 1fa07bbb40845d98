// A new orchestrator takes over a run from its log alone: lock, replay, a session that knows
// every worker the log recorded. Used by `team resume` and by `team cancel` when the old one is gone.
import type { TeamConfig } from '../../config/schema.js';
import type { EventOf } from '../checkpoint/events.js';
import { readRunFiles } from '../checkpoint/read.js';
import type { RunPaths } from '../checkpoint/store.js';
import { foldRun, type RunView } from '../checkpoint/view.js';
import { UsageError } from '../errors.js';
import { makeRunLogger } from '../logger.js';
import { acquireLock } from './lock.js';
import type { Progress } from './progress.js';
import { replayRun, type Replay } from './replay.js';
import { RunSession } from './session.js';

export interface Takeover {
  session: RunSession;
  replay: Replay;
  view: RunView;
  release: () => void;
}

// Takes the run's lock and rebuilds its state; throws (changing nothing) on a determinism violation.
export function takeOver(paths: RunPaths & { runId: string }, project: { dir: string; config: TeamConfig; configFile?: string }, progress: Progress, command: string): Takeover {
  const release = acquireLock(paths, command);
  try {
    const files = readRunFiles(paths);
    const view = foldRun(files, project.dir);
    const started = files.events.find((e): e is EventOf<'run_started'> & { file: string } => e.event === 'run_started');
    if (!started) throw new UsageError(`run ${paths.runId} was not started by the pipeline (no run_started event): it is driven with \`team state\` commands`);
    const replay = replayRun(files.events);
    const session = new RunSession({
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
      events: files.events,
      sessionIds: { session: started.session, parent_session: started.parent_session },
      limits: started.limits,
    });
    return { session, replay, view, release };
  } catch (error) {
    release();
    throw error;
  }
}

// The last resort of `team cancel`: a log that cannot be replayed still names the run's workers
// (attempt_spawned), and they are stopped without the machine; the log is left as it is.
import type { TeamConfig } from '../../config/schema.js';
import { killServer } from '../../workers/tmux/index.js';
import { loadRunFold } from '../log/read-view.js';
import type { RunPaths } from '../log/write.js';
import { stopLeftoverGates } from '../gates/groups.js';
import { acquireLock } from '../run/lock.js';
import { WorkerRegistry } from '../attempt/registry.js';

// Stops every worker and verify gate the log recorded (and the run's tmux servers); returns how many
// workers were recorded.
export async function stopRecordedWorkers(paths: RunPaths & { runId: string }, config: TeamConfig, force: boolean): Promise<number> {
  const release = acquireLock(paths, 'team cancel');
  try {
    const registry = new WorkerRegistry(loadRunFold(paths));
    const handles = registry.all();
    const graceMs = force ? 0 : config.team.shutdownTimeoutMs;
    await Promise.all([...handles.map((handle) => registry.backendOf(handle).stop(handle, { graceMs })), stopLeftoverGates(registry)]);
    for (const socketDir of registry.tmuxSocketDirs()) await killServer(paths.runId, { socketDir }).catch(() => {});
    return handles.length;
  } finally {
    release();
  }
}

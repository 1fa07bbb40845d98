// The last resort of `team cancel`: a log that cannot be replayed still names the run's workers
// (attempt_spawned), and they are stopped without the machine; then the run is recorded cancelled
// by a `run_cancelled` that names the damage, a record every reader takes without a replay.
import type { TeamConfig } from '../../config/schema.js';
import { foldOf } from '../log/fold/fold.js';
import { readRunFiles } from '../log/read.js';
import { appendEvent, type RunPaths } from '../log/write.js';
import { stopLeftoverGates } from '../gates/groups.js';
import { acquireLock } from '../store/files/lock.js';
import { WorkerRegistry } from '../session/registry.js';

// Stops every worker and verify gate the log recorded (and the run's tmux servers), then records
// the run cancelled with `violation` and the damaged files in its reason; returns that reason and
// how many workers were recorded.
export async function cancelUnreplayable(paths: RunPaths & { runId: string }, config: TeamConfig, force: boolean, violation: string): Promise<{ count: number; reason: string }> {
  const release = acquireLock(paths, 'team cancel');
  try {
    const files = readRunFiles(paths);
    const registry = new WorkerRegistry(foldOf(files.run, files.events));
    const handles = registry.all();
    const graceMs = force ? 0 : config.team.shutdownTimeoutMs;
    await Promise.all([...handles.map((handle) => registry.backendOf(handle).stop(handle, { graceMs })), stopLeftoverGates(registry, paths.runId)]);
    await registry.killTmuxServers(paths.runId);
    const damaged = files.problems.map((problem) => problem.file);
    const where = damaged.length > 0 ? `damaged: ${damaged.join(', ')}` : 'no file is malformed';
    const reason = `cancelled by team cancel with a log that cannot be replayed (${where}): ${violation}`;
    appendEvent(paths, paths.runId, { event: 'run_cancelled', reason }, { fsync: config.team.fsync });
    return { count: handles.length, reason };
  } finally {
    release();
  }
}

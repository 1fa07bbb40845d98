// Verify gates a dead orchestrator left running. A takeover never adopts a gate (a verify pass runs
// its gates again from the start), so whatever is left of a recorded gate's group is stopped.
import { stopGroup } from '../../workers/process.js';
import type { WorkerRegistry } from '../session/registry.js';

// Stops every gate group the log recorded that still runs: SIGTERM, then SIGKILL, each only to a
// group still led by the recorded process (or by none); returns once they are gone.
export async function stopLeftoverGates(registry: WorkerRegistry): Promise<void> {
  await Promise.all(registry.gates().map((group) => stopGroup(group, { graceMs: 0 }, () => {})));
}

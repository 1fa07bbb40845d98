// Verify gates a dead orchestrator left running. A takeover never adopts a gate (a verify pass runs
// its gates again from the start), so whatever is left of a recorded gate's group is stopped.
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopGroup } from '../../workers/process.js';
import type { WorkerRegistry } from '../session/registry.js';

// A gate's private temporary folder (mkdtemp's prefix): named for its run, so that the one a killed
// orchestrator's gate left is found again. A gate removes its own when it ends.
export function gateTmpPrefix(runId: string): string {
  return join(tmpdir(), `teamline-gate-${runId}-`);
}

// Stops every gate group the log recorded that still runs: SIGTERM, then SIGKILL, each only to a
// group still led by the recorded process (or by none); returns once they are gone, and their
// temporary folders with them.
export async function stopLeftoverGates(registry: WorkerRegistry, runId: string): Promise<void> {
  await Promise.all(registry.gates().map((group) => stopGroup(group, { graceMs: 0 }, () => {})));
  removeLeftoverGateFolders(runId);
}

// The temporary folders of this run's gates that a killed orchestrator left: only names mkdtemp made
// from the run's prefix (six characters after it), each removed as it is (a link is removed, never followed).
function removeLeftoverGateFolders(runId: string): void {
  const prefix = `teamline-gate-${runId}-`;
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(prefix) && /^[A-Za-z0-9]{6}$/.test(name.slice(prefix.length))) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

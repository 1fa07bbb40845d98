// Before the runtime records an attempt's end that its worker did not make (our error, a failed
// adoption), the worker and what it started stop: no process of a run outlives its record.
import { elsewhere } from '../sys/proc.js';
import { stopAttemptEscapees } from './execute.js';
import type { RunSession } from '../session/session.js';

// Stops the attempt's recorded worker (polite request, grace, SIGTERM, SIGKILL to its group) and its escapees.
export async function stopLiveAttempt(session: RunSession, taskId: string, attempt: number): Promise<void> {
  const handle = session.place.ownWorker(taskId, attempt);
  if (!handle || elsewhere(handle)) return;
  const backend = session.registry.backendOf(handle);
  if (await backend.isAlive(handle)) await backend.stop(handle, { graceMs: session.limits.shutdownTimeoutMs });
  await stopAttemptEscapees(session.runId, taskId, attempt, handle);
}

// The shutdown protocol for an attempt whose agent uses the team tools: a cancel first records a
// shutdown request, which the agent sees in the answer to its next call, and gives it the grace
// period to end itself (team_done, team_fail); only then is it signalled, as every attempt is. An
// agent that has not made a call yet (a model still thinking over its first turn, one that never
// answers) may never look: it is signalled at once, so that a cancel does not wait the grace for it.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AttemptInput } from '../../machines/types.js';
import { CALL_SUFFIX, CALLS_DIR } from '../team-tools/calls.js';
import type { RunSession } from '../session/session.js';

// The signal the attempt's watch stops on: the run's, later by the grace period when the agent has
// called the team tools (a call in its calls folder) and the cancel is not forced.
export function askToolsFirst(session: RunSession, input: AttemptInput, attemptDir: string, signal: AbortSignal): { signal: AbortSignal; release(): void } {
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let offForce = () => undefined as unknown;
  const onAbort = () => {
    if (session.cancel.force || !hasCalled(attemptDir)) return stop.abort();
    session.events.append({ event: 'team_shutdown_requested', task_id: input.taskId, attempt: input.attempt, worker: input.worker, by: 'cancel' });
    void session.events.settled();
    session.progress.emit({ type: 'attempt.shutdown-requested', task: input.taskId, attempt: input.attempt }, `… ${input.taskId} a${input.attempt}: shutdown requested through the team tools (${Math.round(session.config.team.shutdownTimeoutMs / 1000)}s to finish)`);
    timer = setTimeout(() => stop.abort(), session.config.team.shutdownTimeoutMs);
    offForce = session.cancel.onForce(() => stop.abort());
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: stop.signal,
    release: () => {
      clearTimeout(timer);
      offForce();
      signal.removeEventListener('abort', onAbort);
    },
  };
}

// Whether the attempt's agent has made a team tool call (its calls stay in the folder, answered or not).
function hasCalled(attemptDir: string): boolean {
  try {
    return readdirSync(join(attemptDir, CALLS_DIR)).some((name) => name.endsWith(CALL_SUFFIX));
  } catch {
    return false;
  }
}

// A tool call relayed through the inbox by a team worker (PostgreSQL store), whose attempt runs on
// another machine: the writer records it as the call desk records a local one. The request's key is
// the call's key in the log, so that the worker knows the call is recorded when it sees it there.
import { z } from 'zod';
import type { FoldState } from '../log/fold/fold.js';
import { STAGES, type Stage } from '../../workers/types.js';
import { handleCall, type CallSite } from './answer.js';
import { callSchema } from './calls.js';
import { callEventKey } from './desk.js';
import type { InboxHandler } from './take.js';

const body = z.strictObject({ task_id: z.string().min(1), attempt: z.number().int().positive(), worker: z.string().min(1), stage: z.enum(STAGES), call: callSchema });
export type RelayedCall = z.infer<typeof body>;

// The call's site as the writer sees it: paths are checked against the project.
function siteOf(call: RelayedCall, projectDir: string): CallSite {
  return { task: call.task_id, attempt: call.attempt, worker: call.worker, stage: call.stage as Stage, workDir: projectDir, attemptDir: projectDir, resultFile: '' };
}

// Whether the call's attempt is live in the log (a call of an ended attempt is refused).
function liveAttempt(st: Readonly<FoldState>, call: RelayedCall): boolean {
  const attempt = st.tasks.get(call.task_id)?.attempts.find((a) => a.attempt === call.attempt);
  // A team worker's attempt_taken may be folded after its first calls: the assignment says whose it is.
  return attempt?.status === 'running' && (attempt.worker ?? st.assigned.get(call.task_id)) === call.worker;
}

export const TOOL_CALL: InboxHandler<RelayedCall> = {
  body,
  toEvent(relayed, request, session) {
    const site = siteOf(relayed, session.projectDir);
    if (request.key !== callEventKey(site, relayed.call.key)) return { refused: 'the request key is not its call\'s' };
    const st = session.events.fold.state;
    if (!liveAttempt(st, relayed)) return { refused: `${relayed.task_id} a${relayed.attempt} of ${relayed.worker} is not running` };
    const handled = handleCall(st, site, relayed.call, request.key);
    return handled.event ?? { refused: String((handled.answer.answer as { error?: unknown }).error ?? 'refused') };
  },
};

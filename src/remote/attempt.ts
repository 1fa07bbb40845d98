// An attempt run by a `team worker` (PostgreSQL store): its job went into the queue with its
// task_started; the effect waits for the worker's word (worker-news.ts) and records the end as the
// orchestrator records one of its own. A cancel before any worker took the job cancels the job; a
// worker that runs it stops it on the run's cancel request (or, stopped with no cancel, on a stop
// request of this attempt), and its report says so. A lease that expired (the worker's machine
// gone) fails the attempt, which is retried by the usual rules.
import { z } from 'zod';
import { once } from '../sys/once.js';
import type { AttemptInput } from '../../machines/types.js';
import type { WorkerExit } from '../../workers/types.js';
import { attemptJobId, attemptQueue, cancelUntakenJob } from '../store/attempt-queue.js';
import { resolveAgent } from '../attempt/prepare/agents.js';
import { finishInterrupted, taskFinished } from '../attempt/records.js';
import { concludeEnd } from '../attempt/conclude.js';
import { guardCliText } from '../domain/result-guard.js';
import type { RunSession } from '../session/session.js';
import type { StoreLink } from '../store/queue.js';
import type { RemoteEnd } from './worker-news.js';
import { workerWord } from '../domain/worker-word.js';
import { newsOf, passStopOn } from './writer.js';

// A finished report as a worker writes it (src/team-worker/attempt.ts); anything else is refused.
const finishedBody = once(() => z.object({
  result: z.union([z.object({ refused: z.string() }), z.object({ text: z.string().optional() })]),
  exit: z.object({ exitCode: z.number().int().nullable(), signal: z.string().nullable(), durationMs: z.number(), stopped: z.boolean(), reason: z.string().optional() }),
  exitRecord: z.object({ exitCode: z.number().int().nullable(), signal: z.string().nullable(), reason: z.string().optional() }).nullable(),
  output: z.string(),
  /** Through a remote: the task's branch as the worker left it. */
  git: z.object({ branch: z.string().optional(), commit: z.string().optional(), pushed: z.boolean(), error: z.string().optional(), markers: z.array(z.string()).optional() }).optional(),
}));

// The effect behind runAttempt when a team worker runs the attempt.
export async function runRemoteAttempt(session: RunSession, remote: StoreLink, input: AttemptInput, signal: AbortSignal): Promise<void> {
  const news = newsOf(remote);
  const waiting = news.waitFor(input);
  try {
    let end = await Promise.race([waiting, aborted(signal)]);
    if (end === 'aborted') {
      const ref = { runId: session.runId, taskId: input.taskId, attempt: input.attempt };
      if (await cancelUntakenJob(remote.store, remote.boss, ref, attemptQueue(), attemptJobId(ref.runId, ref.taskId, ref.attempt))) {
        return finishInterrupted(session, input, 'stopped by cancel before a worker took it');
      }
      // A worker runs it: the run's cancel request stops it there (an attempt that called the team
      // tools sees this shutdown request first), and its report (or lease) says how it ended. With no
      // cancel (the budget spent, the run failing) its worker is asked to stop it. What stopped it is
      // in the fold once the log is durable up to now.
      await session.events.settled();
      const st = session.events.fold.state;
      if (st.status !== 'cancelling') await passStopOn(remote, session, input, st.spend?.exceeded ?? 'the run stopped it');
      else if (!session.cancel.force && usedTools(session, input)) {
        session.events.append({ event: 'team_shutdown_requested', task_id: input.taskId, attempt: input.attempt, worker: input.worker, by: 'cancel' });
        void session.events.settled();
      }
      end = await waiting;
    }
    await conclude(session, input, end, signal);
  } finally {
    news.forget(input);
  }
}

async function conclude(session: RunSession, input: AttemptInput, end: RemoteEnd, signal: AbortSignal): Promise<void> {
  if (end.kind === 'expired') {
    // Whatever the attempt did is on the machine that is gone, never in a folder another attempt
    // works in: it fails as a killed attempt does, and is retried by the usual rules.
    const { expiresAt } = end.lease;
    return fail(session, input, `worker ${workerWord(end.lease.workerId, 'a worker')} on ${workerWord(end.lease.host, 'its machine')} stopped renewing its lease (expired ${expiresAt}): that machine is gone or cut off`);
  }
  const body = finishedBody().safeParse(end.report.body);
  if (!body.success) return finishInterrupted(session, input, `worker ${workerWord(end.report.workerId, 'a worker')} sent a finished report that is not one (${guardCliText(body.error.issues[0]?.message ?? 'invalid')})`);
  const { result, exit, exitRecord, output, git } = body.data;
  if (git?.markers?.length) return fail(session, input, `conflict markers are still in ${git.markers.map((file) => guardCliText(file)).join(', ')}: the conflict is not resolved, nothing was committed or merged`);
  if (git?.branch && !git.pushed) return fail(session, input, `worker ${workerWord(end.report.workerId, 'a worker')} could not push ${git.branch} (${guardCliText(git.error ?? 'no reason given')}): its work is not where this run can merge it`);
  // The wrapper's record holds the agent's own status, as for an attempt of this machine.
  const ended: WorkerExit = exitRecord ? { exitCode: exitRecord.exitCode, signal: exitRecord.signal, durationMs: exit.durationMs, stopped: exit.stopped, ...(exit.reason ? { reason: exit.reason } : {}) } : exit;
  if (ended.stopped && signal.aborted) return finishInterrupted(session, input, `stopped by cancel on worker ${workerWord(end.report.workerId, 'a worker')} (${guardCliText(ended.reason ?? 'stopped')})`);
  const { adapter } = resolveAgent(session.config, input.agent);
  await concludeEnd(session, input, adapter, { exit: ended, output, result }, false);
}

// The attempt failed for a reason of the workers' side: retried by the usual rules.
function fail(session: RunSession, input: AttemptInput, evidence: string): void {
  session.progress.emit({ type: 'attempt.finished', task: input.taskId, attempt: input.attempt, worker: input.worker, status: 'failed', evidence }, `✘ ${input.taskId} a${input.attempt} failed: ${evidence}`);
  session.events.commit(taskFinished(session, input, 'failed', evidence, [], ''));
}

// Whether the attempt made a team tool call (its calls are in the log under its prefix).
function usedTools(session: RunSession, input: AttemptInput): boolean {
  const prefix = `call:${input.taskId}:a${input.attempt}:`;
  for (const key of session.events.fold.state.team.keys) if (key.startsWith(prefix)) return true;
  return false;
}

function aborted(signal: AbortSignal): Promise<'aborted'> {
  if (signal.aborted) return Promise.resolve('aborted');
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve('aborted'), { once: true }));
}

// The team tools of an attempt run by a team worker: the worker is not the run's writer, so each
// call its `team mcp` leaves is relayed through the writer inbox, and answered once its event is in
// the log — computed, as the writer did, from the log up to that event. The progress note and the
// result of team_done are written here, where the watchdog and the finished report read them.
import type { Stage } from '../../workers/types.js';
import { foldOf } from '../log/fold/fold.js';
import { handleCall, type CallSite } from '../team-tools/answer.js';
import { takeOpenCalls, writeAnswer, type ToolCall } from '../team-tools/calls.js';
import { callEventKey } from '../team-tools/desk.js';
import type { PgStore } from '../store/attempt-queue.js';

// How often the calls folder and, while calls wait, the log are looked at.
const POLL_MS = 200;

export interface CallRelay {
  close(): Promise<void>;
}

// Relays the calls of `site`'s attempt of run `runId` until closed.
export function relayCalls(store: PgStore, runId: string, site: CallSite, onError: (error: Error) => void): CallRelay {
  const waiting = new Map<string, ToolCall>();
  // How many events the log held when it was last read: it is read again only once it grew.
  const log = { readAt: -1 };
  let busy = Promise.resolve();
  const look = () => {
    busy = busy.then(() => relayOnce(store, runId, site, waiting, log)).catch((error: Error) => onError(error));
  };
  const timer = setInterval(look, POLL_MS);
  look();
  return {
    close: async () => {
      clearInterval(timer);
      await busy;
    },
  };
}

async function relayOnce(store: PgStore, runId: string, site: CallSite, waiting: Map<string, ToolCall>, log: { readAt: number }): Promise<void> {
  for (const call of takeOpenCalls(site.attemptDir)) {
    const key = callEventKey(site, call.key);
    if (waiting.has(key)) continue;
    await store.postRequest(runId, { kind: 'tool_call', key, body: { task_id: site.task, attempt: site.attempt, worker: site.worker, stage: site.stage, call } });
    waiting.set(key, call);
  }
  if (waiting.size === 0) return;
  const count = await store.eventCount(runId);
  if (count === log.readAt) return;
  const read = await store.read(runId);
  log.readAt = count;
  for (const [key, call] of waiting) {
    const at = read.events.findIndex((e) => 'key' in e && e.key === key);
    if (at < 0) continue;
    const event = read.events[at]!;
    if (event.event === 'inbox_refused') writeAnswer(site.attemptDir, call.key, { ok: false, answer: { error: event.reason } });
    else {
      const handled = handleCall(foldOf(read.run, read.events.slice(0, at)), site, call, key);
      handled.after?.();
      writeAnswer(site.attemptDir, call.key, handled.answer);
    }
    waiting.delete(key);
  }
}

// The site of an attempt run here.
export function relaySite(job: { taskId: string; attempt: number; worker: string; stage: string }, workDir: string, attemptDir: string, resultFile: string): CallSite {
  return { task: job.taskId, attempt: job.attempt, worker: job.worker, stage: job.stage as Stage, workDir, attemptDir, resultFile };
}

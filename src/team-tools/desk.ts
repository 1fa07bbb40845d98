// The call desk of one attempt run here: while the attempt runs, each tool call its `team mcp`
// leaves is recorded (once, by its key, durable before the answer) and answered. A call left when
// the orchestrator died is taken by the next one's desk, on resume.
import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { RunSession } from '../session/session.js';
import { recordOnce } from './record-once.js';
import { CALL_SUFFIX, CALLS_DIR, takeOpenCalls, writeAnswer } from './calls.js';
import { handleCall, type CallSite } from './answer.js';

// How often the calls folder is looked at besides its change notices.
const POLL_MS = 100;

export interface CallDesk {
  /** Takes the calls left, then stops. */
  close(): Promise<void>;
}

// The idempotency key of a call of an attempt: unique in the run.
export function callEventKey(site: Pick<CallSite, 'task' | 'attempt'>, key: string): string {
  return `call:${site.task}:a${site.attempt}:${key}`;
}

// Opens the desk of `site`'s attempt.
export function openDesk(session: RunSession, site: CallSite): CallDesk {
  let busy = Promise.resolve();
  let queued = false;
  const warn = (error: unknown) => session.log.warn({ err: error, task: site.task, attempt: site.attempt }, 'a tool call was not taken');
  // Every call waiting (the poll, the start, the close).
  const take = () => {
    if (queued) return busy;
    queued = true;
    busy = busy.then(async () => {
      queued = false;
      await takeCalls(session, site);
    }).catch(warn);
    return busy;
  };
  // The call a change notice named, in turn with the rest.
  const takeNamed = (name: string) => {
    busy = busy.then(() => takeCalls(session, site, name)).catch(warn);
  };
  const timer = setInterval(() => void take(), POLL_MS);
  timer.unref();
  let watcher: FSWatcher | undefined;
  try {
    // A notice of a call's file in place; not of a file being written, nor of an answer (the desk's
    // own): each would read the folder again for nothing, and it grows by two files a call.
    watcher = watch(join(site.attemptDir, CALLS_DIR), (_type, name) => {
      if (name === null) void take();
      else if (name.endsWith(CALL_SUFFIX)) takeNamed(name);
    });
    watcher.on('error', () => undefined);
  } catch {
    // No calls folder yet (an agent without the tools): the poll looks.
  }
  void take();
  return {
    close: async () => {
      clearInterval(timer);
      watcher?.close();
      await busy;
      await take();
    },
  };
}

// Records and answers every call waiting, in the order made (with `name`, that call alone).
export async function takeCalls(session: RunSession, site: CallSite, name?: string): Promise<void> {
  for (const call of takeOpenCalls(site.attemptDir, name)) {
    const key = callEventKey(site, call.key);
    const handled = handleCall(session.events.fold.state, site, call, key);
    if (handled.event) await recordOnce(session, key, handled.event);
    handled.after?.();
    writeAnswer(site.attemptDir, call.key, handled.answer);
  }
}

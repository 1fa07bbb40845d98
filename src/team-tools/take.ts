// The writer's side of the inbox: while it drives the run, it takes each request waiting, records it
// as an event once (its handler checks the body), then removes it. A request left by a writer that
// died before removing it is taken again by the next one, and its key makes it once.
import { z } from 'zod';
import type { NewEvent } from '../log/schema.js';
import type { RunSession } from '../session/session.js';
import type { InboxRequest } from '../store/inbox.js';
import type { RunStore } from '../store/types.js';
import { recordOnce } from './record-once.js';

// A kind of request: its body's schema, and the event it is recorded as (or why it is refused).
export interface InboxHandler<B = unknown> {
  body: z.ZodType<B>;
  toEvent(body: B, request: InboxRequest, session: RunSession): NewEvent | { refused: string };
}

// Takes the run's requests until the returned stop is called; the stop waits for a take under way.
export function takeInbox(session: RunSession, store: RunStore, handlers: Record<string, InboxHandler<never>>): () => Promise<void> {
  let stopped = false;
  let taking = Promise.resolve();
  const take = () => {
    taking = taking.then(async () => void (await takeWaiting(session, store, handlers))).catch((error: unknown) => session.log.warn({ err: error }, 'the writer inbox was not read'));
  };
  take();
  const timer = setInterval(() => {
    if (!stopped) take();
  }, store.pollMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await taking;
  };
}

// Records every request waiting, in the order posted.
export async function takeWaiting(session: RunSession, store: RunStore, handlers: Record<string, InboxHandler<never>>): Promise<number> {
  const read = await store.pendingRequests(session.runId);
  for (const bad of read.unreadable) {
    session.log.warn({ request: bad.id, reason: bad.reason }, 'a request to the writer cannot be read: removed');
    await store.removeRequest(session.runId, bad.id);
  }
  for (const request of read.requests) {
    await recordOnce(session, request.key, eventOf(session, request, handlers[request.kind]));
    await store.removeRequest(session.runId, request.id);
  }
  return read.requests.length;
}

function eventOf(session: RunSession, request: InboxRequest, handler: InboxHandler<never> | undefined): NewEvent {
  const refuse = (reason: string): NewEvent => ({ event: 'inbox_refused', key: request.key, kind: request.kind, reason });
  if (!handler) return refuse(`no request of kind ${request.kind} is known`);
  const body = (handler.body as z.ZodType<unknown>).safeParse(request.body);
  if (!body.success) return refuse(z.prettifyError(body.error));
  const made = (handler as InboxHandler<unknown>).toEvent(body.data, request, session);
  if ('refused' in made) return refuse(made.refused);
  // The key is what makes the request once, on a resume too: an event without it is our bug.
  if (!('key' in made) || made.key !== request.key) return refuse(`the ${request.kind} handler made an event without the request's key`);
  return made;
}

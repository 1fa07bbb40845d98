// The writer inbox: how a process that is not a run's writer asks the writer to record something
// (a message from the human, a relayed tool call, a change of scale). A request has a kind, a body
// and an idempotency key; the writer records it as an event once, then removes it (src/run/inbox.ts).
import { z } from 'zod';
import { UsageError } from '../sys/errors.js';

// A request is a small JSON object; a bigger one is not one (the file store refuses to read it).
export const INBOX_REQUEST_BYTES = 64 * 1024;

// A request as posted: its kind names the handler that checks its body; its key makes it once.
export const inboxRequestSchema = z.strictObject({
  kind: z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/),
  // An id, or a relayed tool call's key in the log (`call:<task>:a<n>:<call key>`).
  key: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,239}$/),
  body: z.record(z.string(), z.unknown()),
});
export type NewInboxRequest = z.infer<typeof inboxRequestSchema>;

// A request as the writer reads it: `id` is where the store keeps it (what removeRequest takes).
export type InboxRequest = NewInboxRequest & { id: string; at: string };

// What a read of the inbox gives: the requests in the order posted, and what could not be read as one
// (reported and removed by the writer, never recorded).
export interface InboxRead {
  requests: InboxRequest[];
  unreadable: Array<{ id: string; reason: string }>;
}

// Checks a request before it is posted: a bad one is bad input, named.
export function checkInboxRequest(request: unknown): NewInboxRequest {
  const parsed = inboxRequestSchema.safeParse(request);
  if (!parsed.success) throw new UsageError(`a request to the run's writer is invalid: ${z.prettifyError(parsed.error)}`);
  const text = JSON.stringify(parsed.data);
  if (Buffer.byteLength(text) > INBOX_REQUEST_BYTES) throw new UsageError(`a request to the run's writer is over ${INBOX_REQUEST_BYTES} bytes`);
  return parsed.data;
}

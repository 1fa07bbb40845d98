// The file store's writer inbox: one file per request in the run folder's inbox/, written
// atomically, read with the safe reader (a FIFO or a link is refused, never waited on).
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { makeStamp, nowIso } from '../../log/time.js';
import { TEMP_PREFIX, writeFileAtomic } from '../../sys/atomic.js';
import { readRegularFile } from '../../sys/regular-file.js';
import { INBOX_REQUEST_BYTES, inboxRequestSchema, type InboxRead, type NewInboxRequest } from '../inbox.js';

// The folder, in the run folder.
export const INBOX_DIR = 'inbox';

// A request file's name: the time it was posted (so names sort in the order posted) and its key.
const NAME = /^(\d{8}T\d{12}Z)-(.+)\.json$/;

// Leaves the request in the run folder, whole or not at all.
export function postFileRequest(runDir: string, request: NewInboxRequest, fsync: boolean): void {
  const dir = join(runDir, INBOX_DIR);
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(dir, `${makeStamp()}-${request.key}.json`, JSON.stringify({ ...request, at: nowIso() }), { fsync });
}

// The requests waiting, in the order posted.
export function readFileRequests(runDir: string): InboxRead {
  const dir = join(runDir, INBOX_DIR);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => !name.startsWith(TEMP_PREFIX)).sort();
  } catch {
    return { requests: [], unreadable: [] };
  }
  const read: InboxRead = { requests: [], unreadable: [] };
  for (const name of names) {
    const reading = readRegularFile(join(dir, name), INBOX_REQUEST_BYTES);
    if (!reading.ok) {
      if (!reading.missing) read.unreadable.push({ id: name, reason: reading.reason });
      continue;
    }
    const parsed = parseRequest(reading.text);
    if (!NAME.test(name) || parsed === undefined) read.unreadable.push({ id: name, reason: 'not a request (its name or its JSON)' });
    else read.requests.push({ ...parsed.request, id: name, at: parsed.at });
  }
  return read;
}

// Removes a request taken (a name outside the folder is never removed).
export function removeFileRequest(runDir: string, id: string): void {
  if (id.includes('/') || id.startsWith('.')) return;
  rmSync(join(runDir, INBOX_DIR, id), { force: true });
}

function parseRequest(text: string): { request: NewInboxRequest; at: string } | undefined {
  try {
    const raw = JSON.parse(text) as Record<string, unknown>;
    const { at, ...rest } = raw;
    const request = inboxRequestSchema.safeParse(rest);
    return request.success && typeof at === 'string' ? { request: request.data, at } : undefined;
  } catch {
    return undefined;
  }
}

// Where `team cancel` leaves its request for a live orchestrator. An asker in the orchestrator's
// pid namespace signals it after (SIGTERM: the orchestrator reads the request then); one in another
// namespace cannot, and says so in the request, which the orchestrator looks for itself.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../sys/atomic.js';
import { readRegularFile, type FileReading } from '../sys/regular-file.js';

// The request's file, in the run folder.
export const CANCEL_REQUEST_FILE = 'cancel-request.json';

// What `team cancel` asks, and whether a signal announces it.
export interface CancelRequest {
  by: string;
  force: boolean;
  /** false: no signal follows (the asker cannot reach the orchestrator's pid); absent means one does. */
  signalled?: boolean;
}

// Leaves a request in the run folder, whole or not at all.
export function writeCancelRequest(runDir: string, request: CancelRequest): void {
  writeFileAtomic(runDir, CANCEL_REQUEST_FILE, JSON.stringify(request), { fsync: false });
}

// The request in the run folder, removed as it is taken; 'none' without one, 'unreadable' when it cannot be read.
export function takeCancelRequest(runDir: string): CancelRequest | 'none' | 'unreadable' {
  const file = join(runDir, CANCEL_REQUEST_FILE);
  const reading = readRequest(runDir);
  if (!reading.ok && reading.missing) return 'none';
  rmSync(file, { force: true });
  try {
    if (!reading.ok) return 'unreadable';
    const asked = JSON.parse(reading.text) as Partial<CancelRequest>;
    return { by: typeof asked.by === 'string' ? asked.by : 'team cancel', force: asked.force === true, ...(asked.signalled === false ? { signalled: false } : {}) };
  } catch {
    return 'unreadable';
  }
}

// True when a request waits that no signal announces.
export function unsignalledRequestWaits(runDir: string): boolean {
  const reading = readRequest(runDir);
  if (!reading.ok) return false;
  try {
    return (JSON.parse(reading.text) as Partial<CancelRequest>).signalled === false;
  } catch {
    return false;
  }
}

// A request is a line of JSON; a bigger file is not one.
const REQUEST_BYTES = 64 * 1024;

// The request file, read as one a worker could have replaced: a FIFO or a link is refused at once,
// never waited on (the orchestrator looks for a request twice a second).
function readRequest(runDir: string): FileReading {
  return readRegularFile(join(runDir, CANCEL_REQUEST_FILE), REQUEST_BYTES);
}

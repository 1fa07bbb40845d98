// Where `team cancel` leaves its request for a live orchestrator. An asker in the orchestrator's
// pid namespace signals it after (SIGTERM: the orchestrator reads the request then); one in another
// namespace cannot, and says so in the request, which the orchestrator looks for itself.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../sys/atomic.js';

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
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'none' : 'unreadable';
  }
  rmSync(file, { force: true });
  try {
    const asked = JSON.parse(text) as Partial<CancelRequest>;
    return { by: typeof asked.by === 'string' ? asked.by : 'team cancel', force: asked.force === true, ...(asked.signalled === false ? { signalled: false } : {}) };
  } catch {
    return 'unreadable';
  }
}

// True when a request waits that no signal announces.
export function unsignalledRequestWaits(runDir: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(runDir, CANCEL_REQUEST_FILE), 'utf8')) as Partial<CancelRequest>).signalled === false;
  } catch {
    return false;
  }
}

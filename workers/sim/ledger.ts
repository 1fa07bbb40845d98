// The sim's ledger: one JSON line per attempt that did its work, so tests can prove none did it twice.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseTaskId } from './task-id.js';

export interface LedgerEntry {
  run: string;
  task: string;
  attempt: number;
  stage: string;
  /** TEAM_ROLE: which role routing gave the attempt (absent in older ledgers). */
  role?: string;
  worker: string;
  pid: number;
  at: string;
}

// Appends one line in a single O_APPEND write, so concurrent sims never interleave their lines.
export function appendLedger(file: string, entry: LedgerEntry): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify(entry)}\n`, { flag: 'a' });
}

// Every well-formed line of the ledger; a missing file is an empty ledger, a torn line is skipped.
export function readLedger(file: string): LedgerEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const entries: LedgerEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as LedgerEntry);
    } catch {
      // A line cut short by a kill mid-write says nothing reliable.
    }
  }
  return entries;
}

// How many distinct review task ids of this run did their work before `currentTask`, across iterations.
export function countEarlierReviews(file: string, run: string, currentTask: string): number {
  const ids = new Set<string>();
  for (const entry of readLedger(file)) {
    if (entry.run !== run || entry.task === currentTask) continue;
    if (parseTaskId(String(entry.task)).kind === 'review') ids.add(entry.task);
  }
  return ids.size;
}

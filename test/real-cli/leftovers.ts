// What a run's CLIs leave behind, read from /proc on its own: every process started for a run
// carries the run's marker in its environment (inherited from `team`), whatever group it is in.
import { readdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { liveInGroups, readStat } from '../helpers/proc-groups.js';

// A marker for one run's environment (TEAMLINE_TEST_RUN).
export function markRun(): string {
  return randomUUID();
}

// Running processes whose environment holds TEAMLINE_TEST_RUN=<marker>.
export function liveWithMarker(marker: string): Array<{ pid: number; command: string }> {
  const needle = `TEAMLINE_TEST_RUN=${marker}\0`;
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
    } catch {
      continue;
    }
    const state = readStat(Number(entry))?.state;
    if (!environ.includes(needle) || state === undefined || state === 'Z' || state === 'X') continue;
    let command: string;
    try {
      command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').slice(0, 120);
    } catch {
      // Ended between the reads: not alive.
      continue;
    }
    found.push({ pid: Number(entry), command });
  }
  return found;
}

// Asserts that nothing of the run is alive: no process with its marker, none in its workers' groups.
export async function expectNoProcessLeft(marker: string, pgids: number[] = []): Promise<void> {
  expect(liveWithMarker(marker)).toEqual([]);
  expect(liveInGroups(pgids)).toEqual([]);
}

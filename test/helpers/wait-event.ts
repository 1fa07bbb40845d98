// Waiting in tests: for a condition (`waitFor`), and for an event of a project's latest run
// (`waitForEvent`), the two helpers every test shares. Each poll of an event wait lists the
// run's events folder and parses only the files it has not seen (an event file is written once,
// whole, by a rename; a temporary one's name starts with a dot), so a long wait costs little CPU
// beside the run it waits for. `match` sees each event of the name once, in the log's order.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventName, EventOf } from '../../src/log/schema.js';

export type LoggedEvent<N extends EventName = EventName> = EventOf<N> & { file: string };

export interface EventWait {
  /** Fails the wait after this long; default 60 s. */
  timeoutMs?: number;
  /** Fails the wait at once when it gives a reason, e.g. the orchestrator that should write the event ended first. */
  stopIf?: () => string | undefined;
}

const POLL_MS = 50;

// The first event named `name` of the latest run in `project` (a folder, or anything with its `dir`)
// that `match` takes.
export async function waitForEvent<N extends EventName>(
  project: string | { dir: string },
  name: N,
  match: (event: LoggedEvent<N>) => boolean = () => true,
  options: EventWait = {},
): Promise<LoggedEvent<N>> {
  const dir = typeof project === 'string' ? project : project.dir;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const seen = new Set<string>();
  let runId: string | undefined;
  for (;;) {
    const current = join(dir, '.team', 'runs', 'current');
    const id = existsSync(current) ? readFileSync(current, 'utf8').trim() : undefined;
    // A new run starts its log afresh.
    if (id !== runId) seen.clear();
    runId = id;
    const events = id ? join(dir, '.team', 'runs', id, 'events') : undefined;
    const names = events && existsSync(events) ? readdirSync(events).filter((file) => !file.startsWith('.') && !seen.has(file)).sort() : [];
    for (const file of names) {
      seen.add(file);
      if (!file.includes(`-${name}-`)) continue;
      const event = { ...(JSON.parse(readFileSync(join(events!, file), 'utf8')) as EventOf<N>), file };
      if (event.event === name && match(event)) return event;
    }
    const stop = options.stopIf?.();
    if (stop !== undefined) throw new Error(`${stop} before a ${name} event that matched`);
    if (Date.now() > deadline) throw new Error(`no ${name} event matched within ${timeoutMs} ms`);
    await sleep(POLL_MS);
  }
}

// Polls `check` (which may be async) until it gives a value other than undefined or false, and
// returns it; fails the test, naming `what`, after `timeoutMs`.
export async function waitFor<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 60_000, pollMs = POLL_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(pollMs);
  }
}

// `team status`: read-only; what a person (or, with --json, a script) needs to know about a run, from
// the project's files (status-read.ts) or, with `--store URL` or `team.store`, from that PostgreSQL
// database (status-store.ts, loaded only then).
import { showStatus } from './light/status-read.js';

export { printStatus, toJson } from './light/status-read.js';

// Prints the status of the latest or named run; a project with no run says so.
export function runStatus(argv: string[], cmd = 'team status'): number | Promise<number> {
  const shown = showStatus(argv, cmd);
  if (typeof shown === 'number') return shown;
  return import('./store/status.js').then((m) => m.storeStatus(shown.store, shown.runId, shown.projectDir, shown.json));
}

// `team status`: read-only; what a person (or, with --json, a script) needs to know about a run, from
// the store the project names (src/views/status/read.ts).
import { openStore } from '../../store/open.js';
import { showStatus } from '../light/status-read.js';

export { printStatus, toJson } from '../light/status-read.js';

// Prints the status of the latest or named run; a project with no run says so.
export async function runStatus(argv: string[], cmd = 'team status'): Promise<number> {
  return (await showStatus(argv, cmd, (project, flag) => openStore(project, flag, 'status')))!;
}

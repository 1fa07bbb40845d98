// What `team status` runs first, bundled apart from the rest of the CLI (dist/cli/status.cjs): a run's
// files read and shown without the run's machinery. `--watch` and a run in a PostgreSQL store need
// the whole CLI, which runs the command again: before that nothing was shown or written.
import { WHOLE_CLI } from './hand-over.js';
import { FileStore } from '../../store/files/store.js';
import { storeUrlOf } from '../../store/store-url.js';
import { showStatus } from './status-read.js';

export { EXIT, TeamError } from '../../sys/errors.js';

// `team status …` of a run in the project's files; WHOLE_CLI for the live view or a store.
export async function dispatch(argv: string[]): Promise<number | typeof WHOLE_CLI> {
  const rest = argv.slice(1);
  if (rest.includes('--watch')) return WHOLE_CLI;
  const shown = await showStatus(rest, 'team status', (project, flag) => (storeUrlOf(flag, project.config) === undefined ? new FileStore(project.dir, project.write) : undefined));
  return shown ?? WHOLE_CLI;
}

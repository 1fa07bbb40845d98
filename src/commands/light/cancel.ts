// What `team cancel` runs first, bundled apart from the rest of the CLI (dist/cli/cancel.cjs): the
// request reaches a live orchestrator without loading the run's machinery. With no orchestrator left
// to ask, the whole CLI runs the command again (cancel.ts), finds none to ask either, and sweeps:
// what happened before (at most a request to an orchestrator since gone) is what it would have done.
import { askOrchestrator } from './cancel-ask.js';
import { WHOLE_CLI } from './hand-over.js';

export { EXIT, TeamError } from '../../sys/errors.js';

// `team cancel …` as far as asking the orchestrator; WHOLE_CLI when the sweep must follow.
export async function dispatch(argv: string[]): Promise<number | typeof WHOLE_CLI> {
  const asked = await askOrchestrator(argv.slice(1));
  return typeof asked === 'number' ? asked : WHOLE_CLI;
}

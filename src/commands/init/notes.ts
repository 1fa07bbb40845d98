// The steps a CLI needs once beyond the files `team init` writes (trusting a folder, a user policy),
// each said once per `team init`: each CLI's record in the catalogue says its own.
import { initFacts } from '../../../workers/adapters/index.js';
import type { Cli } from './files.js';

// Lines for the CLIs set up under `root`; `team` is how the files name teamline.
export function setupNotes(clis: Cli[], root: string, global: boolean, team: string): string[] {
  return clis.flatMap((cli) => initFacts(cli).notes?.(root, global, team) ?? []);
}

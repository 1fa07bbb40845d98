// The files `team init` writes for each agent CLI: each CLI's record in the catalogue
// (workers/adapters/) says where and in which format it reads custom commands (and, for Codex and
// Gemini, the rule that lets them run `team`); the words are teamline's (./texts.ts).
import { initClis, initFacts } from '../../../workers/adapters/index.js';
import { codexSkill, COMMAND_TEXTS } from './texts.js';

// The CLIs `team init` sets up, by name, in their records' order.
export const CLIS: readonly string[] = initClis().map((adapter) => adapter.name);
export type Cli = string;

export interface InitFile {
  cli: Cli;
  /** Absolute path. */
  path: string;
  text: string;
}

// The files for one CLI under `root` (the project, or the home folder with --global); `team` is how
// the files name teamline's command: the word `team`, or the absolute path given to --bin.
export function filesFor(cli: Cli, root: string, global: boolean, team = 'team'): InitFile[] {
  return initFacts(cli)
    .files({ team, commands: COMMAND_TEXTS, skill: codexSkill(team) }, root, global)
    .map((file) => ({ cli, ...file }));
}

// Every command of `team`, in the order `team --help` lists them: the router runs the one named on
// the command line, the help prints their pages. A new command is its spec here and its handler.
import { LOW_COMMANDS } from './low.js';
import { MORE_COMMANDS } from './more.js';
import { RUN_COMMANDS } from './run.js';
import { TEAM_COMMANDS } from './team.js';
import type { CommandSpec } from './spec.js';

export const COMMANDS: CommandSpec[] = [...RUN_COMMANDS, ...MORE_COMMANDS, ...TEAM_COMMANDS, ...LOW_COMMANDS];

// The command `team <word> …` runs; undefined for any other word, which is the run command's task.
export function commandNamed(word: string): CommandSpec | undefined {
  return COMMANDS.find((spec) => spec.name === word && spec.name !== 'run' && spec.run !== undefined);
}

// The run command: `team [N:type] "task"`, which has no word of its own.
export const RUN_COMMAND: CommandSpec = COMMANDS.find((spec) => spec.name === 'run')!;

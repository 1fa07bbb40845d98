// A command of `team`, as one spec that the router (../index.ts) and the help (../help.ts) both
// read: its words, group, help, flags (the table its parser reads: ../args/), examples, exit codes,
// and its handler, loaded only when it runs; and the exit codes several commands share.
import { EXIT } from '../../sys/errors.js';
import type { FlagSpec } from '../args/args.js';

// The groups of `team --help`, in order.
export const GROUPS = ['run', 'follow', 'inspect', 'take the work', 'set up', 'scale out', 'low level'] as const;

// One command: its help and its handler. Its flags are the table its parser reads (flags.ts, state-flags.ts).
export interface CommandSpec {
  /** The words after `team` (`state start-task`); `run` is `team "task"`, which has no word. */
  name: string;
  /** Other words that name it in `team help` (`checkpoint validate`). */
  aliases?: string[];
  group: (typeof GROUPS)[number];
  /** What it does, in a few words, for `team --help`. */
  brief: string;
  /** How `team --help` names it, when not by its words alone: `team [N:type] "task"`. */
  entry?: string;
  /** What it does, in a line or two, at the top of its page. */
  summary: string;
  /** Its arguments, as the synopsis shows them after its name: `[N:agent-type] "task"`. */
  args?: string;
  /** More on what it does, a line each. */
  about?: string[];
  flags: Record<string, FlagSpec>;
  /** One to three: the command line and what it does. */
  examples: Array<[string, string]>;
  exits: Array<[number, string]>;
  /** Runs it with the words after its name (the whole command line for `run`); absent for a
   *  sub-command, which its command's handler routes (`state start-task`: `state`'s). */
  run?: (args: string[]) => Promise<number>;
}

// The command line of a page: `team status`, `team` for the run command.
export function commandOf(page: Pick<CommandSpec, 'name'>): string {
  return page.name === 'run' ? 'team' : `team ${page.name}`;
}

// Exit 2, which every command has.
export const USAGE_EXIT: [number, string] = [EXIT.usage, 'bad usage, config or input: the message names the argument or field'];

// The exit codes of a command that drives a run to its end (team, ralph, resume).
export const RUN_EXITS: Array<[number, string]> = [
  [EXIT.completed, 'the run completed (with --detach: the orchestrator drives the run)'],
  [EXIT.failed, 'the run failed: verify still failed with its fix loops spent, or a task could not be done'],
  USAGE_EXIT,
  [EXIT.cancelled, 'the run was cancelled (team cancel, Ctrl-C)'],
  [EXIT.decision, 'the run stopped for a human decision: an attempt that may have run, or an approval gate'],
];

// The exit codes of a command that only reads or records.
export function plainExits(done: string): Array<[number, string]> {
  return [[EXIT.completed, done], USAGE_EXIT];
}

// `team init`'s flags: one for each CLI it sets up (--claude, --codex, …), from the catalogue's
// records, and its own. Apart from flags.ts, so that only init and the help load the catalogue.
import type { FlagSpec } from './args.js';
import { PROJECT_DIR } from './flags.js';
import { initClis } from '../../../workers/adapters/index.js';

type Flags = Record<string, FlagSpec>;

function initCliFlags(): Flags {
  const [first, ...rest] = initClis();
  const flag = (setUp: string, default_: string): FlagSpec => ({ type: 'boolean', help: `set up ${setUp}`, default: default_ });
  return Object.fromEntries([
    [first!.name, flag(first!.facts!.init!.setUp, 'every CLI found on the PATH, when none is named')],
    ...rest.map((a) => [a.name, flag(a.facts!.init!.setUp, `as --${first!.name}`)]),
  ]);
}

export const INIT_FLAGS = {
  ...initCliFlags(),
  global: { type: 'boolean', help: 'write to your user-level folders instead of the project' },
  bin: { type: 'string', value: 'PATH', help: 'the absolute path of team to write into the files, for CLIs whose PATH does not find it', default: 'the word team, found on the PATH' },
  print: { type: 'boolean', help: 'show what would be written, write nothing' },
  force: { type: 'boolean', help: 'overwrite files changed since team init wrote them' },
  'git-drivers': { type: 'boolean', help: 'register the checkpoint merge driver in this clone (alone: only that)' },
  cwd: PROJECT_DIR,
} satisfies Flags;

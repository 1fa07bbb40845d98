// How each agent CLI will find `team`: the caller's PATH (claude, opencode and gemini start from it),
// a login shell's for a CLI whose record says so (codex runs commands with `bash -lc`), or the
// absolute path given to `team init --bin`, written into every file in place of the word `team`.
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { execa } from 'execa';
import { UsageError } from '../../sys/errors.js';
import { isExecutable, isOnPath } from '../../attempt/prepare/agents.js';
import { initFacts } from '../../../workers/adapters/index.js';
import type { Cli } from './files.js';

// How a user puts `team` on the PATH; said wherever `team` does not resolve.
export const INSTALL_TEAM = '`npm install -g .` in a clone of teamline';

// What a shell takes as one word unquoted (Python's shlex.quote leaves these alone).
const SHELL_WORD = /^[\w@%+=:,./-]+$/;

// The absolute path --bin names; a usage error unless it is an executable file a shell takes as one word.
export function binFrom(value: string): string {
  const path = resolve(value);
  if (!SHELL_WORD.test(path)) throw new UsageError(`team init --bin: ${JSON.stringify(path)} has a character a shell would split or expand; name a path without it (a symlink to team will do)`);
  if (!existsAsFile(path)) throw new UsageError(`team init --bin: ${path} does not exist or is not a file`);
  if (!isExecutable(path)) throw new UsageError(`team init --bin: ${path} is not executable`);
  return path;
}

// One line per way the named CLIs will not find the word `team`, each with the fix.
export async function pathWarnings(clis: Cli[], env: NodeJS.ProcessEnv): Promise<string[]> {
  // As the README says it: the `team` this shell finds, by the name it finds it (never the clone's
  // file a link leads to); else the path this command was started by.
  const onPath = isOnPath('team', env);
  const bin = onPath ? '"$(command -v team)"' : (selfPath() ?? 'PATH');
  const fix = `install it with ${INSTALL_TEAM}, or write its absolute path into the files with \`team init${clis.length === 1 ? ` --${clis[0]}` : ''} --bin ${bin}\``;
  const warnings: string[] = [];
  const login = clis.filter((cli) => initFacts(cli).loginShell === true);
  const plain = clis.filter((cli) => !login.includes(cli));
  if (plain.length && !onPath) warnings.push(`team init: \`team\` is not on PATH, so ${andList(plain)} cannot run it: ${fix}`);
  if (login.length && (await loginShellFinds('team', env)) === undefined) {
    warnings.push(`team init: \`team\` is not on a login shell's PATH (\`bash -lc 'command -v team'\` finds nothing), where ${andList(login)} ${login.length > 1 ? 'run their' : 'runs its'} commands: ${fix}`);
  }
  return warnings;
}

// "a", "a and b", "a, b and c".
const andList = (names: string[]) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]!);

// The path a login shell finds for `name`, or undefined (bash missing counts as not found).
export async function loginShellFinds(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const result = await execa('bash', ['-lc', `command -v ${name}`], { env, extendEnv: false, stdin: 'ignore', reject: false, timeout: 10_000 });
  // A profile may print lines of its own before the answer.
  const found = String(result.stdout ?? '').trim().split('\n').at(-1) ?? '';
  return result.exitCode === 0 && isAbsolute(found) ? found : undefined;
}

// The path this `team` was started by (a link stays a link: it keeps working when the clone moves
// behind it), when --bin would take it.
function selfPath(): string | undefined {
  try {
    const path = resolve(process.argv[1] ?? '');
    return SHELL_WORD.test(path) && isExecutable(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

function existsAsFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

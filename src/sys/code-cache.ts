// How the `team` command loads its code: from a bundle the build makes (scripts/bundle-cli.ts),
// compiled from V8's code cache of the same command's last run, or, without bundles, from the
// modules tsc wrote. Node 20 has no compile cache of its own (module.enableCompileCache is 22.1+).
import { createRequire } from 'node:module';

// Node's built-ins through require: importing node:fs as ESM builds its facade, which reads every
// export, fs.ReadStream too, and so loads the whole streams library.
const builtin = createRequire(import.meta.url);
const { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = builtin('node:fs') as typeof import('node:fs');
const { dirname, join } = builtin('node:path') as typeof import('node:path');
const { fileURLToPath } = builtin('node:url') as typeof import('node:url');
const { Script } = builtin('node:vm') as typeof import('node:vm');

const BUNDLES = fileURLToPath(new URL('../../cli/', import.meta.url));

// Every command word of `team` (commands/specs; a test keeps the two in step). Each command gets a
// code cache of its own: what one run of it compiled, the next run of the same command finds
// compiled. A run (`team 3:executor "task"`, no command word) has its own, `run`; help and the
// version share `other`. A cache shared by several commands holds what the first of them compiled:
// made by `team --version`, it left every later run compiling the orchestrator's code again (0.57
// against 0.47 CPU-s for a run of 10 tasks).
export const COMMAND_WORDS: ReadonlySet<string> = new Set([
  'ralph', 'resume', 'scale', 'cancel', 'status', 'watch', 'wait', 'attach',
  'list', 'report', 'trace', 'land', 'restore', 'clean', 'init', 'doctor', 'worker',
  'say', 'mcp', 'acp', 'approve', 'state', 'checkpoint', 'merge-driver',
]);
// The exit code of bad usage (EXIT.usage): a command refused at its arguments ran little of its
// code, and its cache would leave the next run of the command compiling the rest.
const USAGE_EXIT = 2;

// The words that print help or the version (commands/index.ts routes them so), which share a cache.
const HELP_WORDS: ReadonlySet<string> = new Set(['help', '--help', '-h', '--version']);

// The cache of `team <word> …`.
export function cacheKey(word: string | undefined): string {
  if (word !== undefined && COMMAND_WORDS.has(word)) return word;
  return word === undefined || HELP_WORDS.has(word) ? 'other' : 'run';
}

export interface BundleOptions {
  /** The word of `team <command> …`; the sim agent has none. */
  command?: string;
  /** The light starts (commands/light/) have caches of their own. */
  light?: boolean;
  /** Whether a process that ends with bad usage (exit 2) saves no cache: the team command's rule. */
  usageSavesNone?: boolean;
  /** Where the bundles are (dist/cli). */
  folder?: string;
}

// The module of bundle `name` (<folder>/<name>.cjs), else, with no bundles built, `unbundled()`.
export async function loadBundle<T>(name: string, unbundled: () => Promise<T>, { command, light = false, usageSavesNone = false, folder = BUNDLES }: BundleOptions = {}): Promise<T> {
  const bundle = join(folder, `${name}.cjs`);
  let source: string;
  let stamp: string;
  try {
    const stat = statSync(bundle);
    stamp = `${stat.size}-${Math.round(stat.mtimeMs)}`;
    source = readFileSync(bundle, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return unbundled();
  }
  // The cache is V8's own format: V8 refuses one made by another version or other flags, and the
  // name ties it to this build of the bundle (the build also removes the caches of the last one).
  const cacheFile = join(folder, 'cache', `${name}-${light ? 'light-' : ''}${cacheKey(command)}-${process.version}-${stamp}.bin`);
  const cachedData = readCache(cacheFile);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData });
  // Saved as the process ends, with what the command compiled (for `team`, not after bad usage).
  if (!cachedData || script.cachedDataRejected) process.once('exit', (code) => (!usageSavesNone || code !== USAGE_EXIT) && saveCache(script, cacheFile));
  const module = { exports: {} as T };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return module.exports;
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

// Saves the code compiled so far, whole or not at all; a package folder that cannot be written
// only goes without a cache.
function saveCache(script: InstanceType<typeof Script>, file: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(temp, script.createCachedData());
    renameSync(temp, file);
  } catch {
    rmSync(temp, { force: true });
  }
}

// How the `team` command loads its code: from the bundle the build makes (scripts/bundle-cli.ts),
// compiled from V8's code cache of the same command's last run, or, without a bundle, from the
// modules tsc wrote. Node 20 has no compile cache of its own (module.enableCompileCache is 22.1+).
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

type Commands = typeof import('./cli-commands.js');

const BUNDLE = fileURLToPath(new URL('../cli/commands.cjs', import.meta.url));
// Commands whose start-up is waited for get a code cache of their own (what one run compiled, the
// next run of the same command finds compiled); the others share one.
const OWN_CACHE = new Set(['status', 'cancel', 'state', 'wait', 'list', 'watch', 'approve', 'report', 'resume', 'land', 'clean']);

// The commands, for a run of `team <command>`.
export async function loadCommands(command: string | undefined): Promise<Commands> {
  let source: string;
  let stamp: string;
  try {
    const stat = statSync(BUNDLE);
    stamp = `${stat.size}-${Math.round(stat.mtimeMs)}`;
    source = readFileSync(BUNDLE, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return import('./cli-commands.js');
  }
  // The cache is V8's own format: V8 refuses one made by another version or other flags, and the
  // name ties it to this build of the bundle (the build also removes the caches of the last one).
  const cacheFile = join(dirname(BUNDLE), 'cache', `${OWN_CACHE.has(command ?? '') ? command : 'other'}-${process.version}-${stamp}.bin`);
  const cachedData = readCache(cacheFile);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: BUNDLE, cachedData });
  if (!cachedData || script.cachedDataRejected) process.once('exit', () => saveCache(script, cacheFile));
  const module = { exports: {} as Commands };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE));
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
function saveCache(script: Script, file: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(temp, script.createCachedData());
    renameSync(temp, file);
  } catch {
    rmSync(temp, { force: true });
  }
}

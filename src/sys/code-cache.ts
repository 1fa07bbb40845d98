// How the `team` command loads its code: from a bundle the build makes (scripts/bundle-cli.ts),
// compiled from V8's code cache of the same command's last run, or, without bundles, from the
// modules tsc wrote. Node 20 has no compile cache of its own (module.enableCompileCache is 22.1+).
import { createRequire } from 'node:module';

// Node's built-ins through require: importing node:fs as ESM builds its facade, which reads every
// export, fs.ReadStream too, and so loads the whole streams library.
const require = createRequire(import.meta.url);
const { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs') as typeof import('node:fs');
const { dirname, join } = require('node:path') as typeof import('node:path');
const { fileURLToPath } = require('node:url') as typeof import('node:url');
const { Script } = require('node:vm') as typeof import('node:vm');

const BUNDLES = fileURLToPath(new URL('../../cli/', import.meta.url));
// Commands whose start-up is waited for get a code cache of their own (what one run compiled, the
// next run of the same command finds compiled); the others share one.
const OWN_CACHE = new Set(['status', 'cancel', 'state', 'wait', 'list', 'watch', 'approve', 'report', 'resume', 'land', 'clean']);

// The module of bundle `name` (dist/cli/<name>.cjs) for a run of `team <command>` (the sim agent's
// has none), else, with no bundles built, `unbundled()`; `light` names the light starts' own caches.
export async function loadBundle<T>(name: string, command: string | undefined, light: boolean, unbundled: () => Promise<T>): Promise<T> {
  const bundle = join(BUNDLES, `${name}.cjs`);
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
  const key = OWN_CACHE.has(command ?? '') ? command : 'other';
  const cacheFile = join(BUNDLES, 'cache', `${name}-${light ? 'light-' : ''}${key}-${process.version}-${stamp}.bin`);
  const cachedData = readCache(cacheFile);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData });
  if (!cachedData || script.cachedDataRejected) process.once('exit', () => saveCache(script, cacheFile));
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

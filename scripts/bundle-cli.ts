// `npm run build`, after tsc: bundles the compiled CLI (dist/src/commands/index.js and everything it
// imports, dependencies included) into one CommonJS file, dist/cli/commands.cjs, and the light starts
// of `team cancel` and `team status` (commands/light/cancel.js, status.js) into files of their own;
// src/sys/code-cache.ts runs them with V8's code cache. One file spares the ESM loader a resolve and a
// compile per module (zod alone is 94 of them), and a CommonJS script is what Node 20 can cache
// compiled code for.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Where the bundle and its code caches live (src/sys/code-cache.ts reads the same names).
const OUT_DIR = join(DIST, 'cli');
// Each bundle: its entry (compiled, under dist) and its file.
const BUNDLES = [
  { entry: 'src/commands/index.js', out: 'commands.cjs' },
  { entry: 'src/commands/light/cancel.js', out: 'cancel.cjs' },
  { entry: 'src/commands/light/status.js', out: 'status.cjs' },
  // The sim agent, started once per attempt (workers/sim/sim-agent.ts loads it).
  { entry: 'workers/sim/main.js', out: 'sim.cjs' },
];
// The `team` command itself (src/cli.ts, what the package's bin names): a CommonJS script starts
// without node's ES module loader, about 12 ms sooner than the ES module tsc writes. It loads the
// bundles above; the modules it imports only when there are none stay outside it.
const TEAM = { entry: 'src/cli.js', out: 'team.cjs' };

// Modules that find files beside themselves (prompts, the sim agent, machines/, package.json) keep
// doing so from the bundle: each one's import.meta.url becomes its own compiled file's URL, found
// from the bundle's folder at run time.
const ownUrls: Plugin = {
  name: 'own-import-meta-url',
  setup(esbuild) {
    esbuild.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(DIST + '/')) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const own = JSON.stringify(relative(OUT_DIR, args.path));
      return { contents: text.replaceAll('import.meta.url', `require('node:url').pathToFileURL(require('node:path').join(__dirname, ${own})).href`), loader: 'js' };
    });
  },
};

// zod's classic API re-exports every locale's error messages (60 modules, about half its code);
// teamline uses only the default, English ones, which zod configures from its `en` module.
const englishOnly: Plugin = {
  name: 'zod-english-only',
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({ contents: 'export { default as en } from "./en.js";', loader: 'js', resolveDir: dirname(args.path) }));
  },
};

// Builds the bundles; the code caches of earlier ones go with them.
export async function bundleCli(): Promise<void> {
  rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(OUT_DIR, { recursive: true });
  for (const { entry, out } of BUNDLES) await bundle(join(DIST, entry), join(OUT_DIR, out));
  await bundle(join(DIST, TEAM.entry), join(OUT_DIR, TEAM.out), [commandsOutside]);
  chmodSync(join(OUT_DIR, TEAM.out), 0o755);
  warmSimCache();
}

// The sim agent usually starts inside the fence, where the package folder is read-only and it cannot
// save a code cache of its own: one start here (with no attempt, so it stops at its setup check)
// leaves the cache every later start reads.
function warmSimCache(): void {
  try {
    execFileSync(process.execPath, [join(DIST, 'workers', 'sim', 'sim-agent.js')], { stdio: 'ignore', env: { PATH: process.env.PATH ?? '' }, timeout: 30_000 });
  } catch {
    // It exits 2 for the missing attempt, as expected; a cache not made only costs its starts speed.
  }
}

// For team.cjs: the command modules src/cli.ts imports when no bundle was built stay the modules tsc
// wrote, named from dist/cli.
const commandsOutside: Plugin = {
  name: 'commands-outside',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\/commands\// }, (args) => args.kind !== 'dynamic-import' ? undefined : ({ path: relative(OUT_DIR, join(args.resolveDir, args.path)).replace(/^(?!\.)/, './'), external: true }));
  },
};

async function bundle(entry: string, outfile: string, more: Plugin[] = []): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    plugins: [...more, ownUrls, englishOnly],
    // Only a named PostgreSQL store, the team tools' server and `team trace` load these (dynamic
    // imports): left out of the bundle, a run on files never parses them, and the orchestrator's
    // memory is the smaller for it.
    external: ['pg', 'pg-boss', '@modelcontextprotocol/sdk', '@opentelemetry/*'],
    logLevel: 'warning',
    // Any import.meta left (a dependency's) would be empty in CommonJS: fail the build instead.
    logOverride: { 'empty-import-meta': 'error' },
  });
}

await bundleCli();

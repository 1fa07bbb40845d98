// teamline as a user installs it: `npm pack` of the built clone, then `npm install -g --prefix P`
// of the tarball. npm resolves the dependencies from a registry on 127.0.0.1 that knows only the
// lock's versions and takes their tarballs from npm's cache (filled by `npm ci`): no other network.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { execa } from 'execa';
import { startLockRegistry } from './lock-registry.js';
import { ROOT } from './team.js';

export interface InstalledTeam {
  prefix: string;
  /** The prefix's bin, where `team` is. */
  bin: string;
  /** The packed files, relative to the package. */
  files: string[];
}

// Packs the clone into `scratch` and installs the tarball into `prefix`; throws when npm fails.
export async function installTeam(scratch: string, prefix: string): Promise<InstalledTeam> {
  // The tests run on a built dist/: the pack takes it as it is (`prepare` would build it again).
  const packed = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], { cwd: ROOT, encoding: 'utf8' })) as { filename: string; files: { path: string }[] }[];
  const registry = await startLockRegistry(join(ROOT, 'package-lock.json'));
  try {
    const install = await execa('npm', ['install', '--global', '--prefix', prefix, '--registry', registry.url, '--no-audit', '--no-fund', join(scratch, packed[0]!.filename)], { reject: false, cwd: scratch });
    if (install.exitCode !== 0) throw new Error(`npm install -g of the tarball failed (registry misses: ${registry.missed.join(', ') || 'none'}):\n${install.stderr}`);
  } finally {
    await registry.close();
  }
  return { prefix, bin: join(prefix, 'bin'), files: packed[0]!.files.map((file) => file.path) };
}

// The system's PATH as a user without teamline has it: one folder of links to the commands of this
// process's PATH (the first of each name, as a shell finds it), built from scratch without the clone,
// its node_modules, and any `team` the runner installed (as the README says, `npm install -g .` puts
// one in /usr/bin or ~/.local/bin): a test that wants `team` off the PATH never finds the runner's.
export function systemPath(): string[] {
  return [systemTools()];
}

let tools: string | undefined;

// Made once per PATH in the clone's test-artifacts/ (git ignores it), never left in /tmp: a test
// worker may end without an exit hook. Built in a folder of its own, then renamed into place.
function systemTools(): string {
  if (tools !== undefined) return tools;
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((d) => d !== '' && !d.includes('node_modules') && !d.startsWith(ROOT));
  const dir = join(ROOT, 'test-artifacts', `tools-${createHash('sha256').update(dirs.join(delimiter)).digest('hex').slice(0, 12)}`);
  if (!existsSync(dir)) {
    mkdirSync(dirname(dir), { recursive: true });
    const building = mkdtempSync(`${dir}.building-`);
    linkCommands(building, dirs);
    // Another test worker may have built it meanwhile: then its copy stays, and this one goes.
    try {
      renameSync(building, dir);
    } catch {
      rmSync(building, { recursive: true, force: true });
    }
  }
  tools = dir;
  return dir;
}

// Links the first command of each name in `dirs` (as a shell finds it) into `into`, but `team`.
function linkCommands(into: string, dirs: string[]): void {
  // Another user (a test's `nobody`) finds its commands there too.
  chmodSync(into, 0o755);
  const seen = new Set<string>(['team']);
  for (const from of dirs) {
    let names: string[];
    try {
      names = readdirSync(from);
    } catch {
      continue;
    }
    for (const name of names) {
      if (seen.has(name)) continue;
      const path = join(from, name);
      try {
        accessSync(path, constants.X_OK);
        if (statSync(path).isDirectory()) continue;
      } catch {
        continue;
      }
      seen.add(name);
      symlinkSync(path, join(into, name));
    }
  }
}

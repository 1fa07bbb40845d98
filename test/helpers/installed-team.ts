// teamline as a user installs it: `npm pack` of the built clone, then `npm install -g --prefix P`
// of the tarball. npm resolves the dependencies from a registry on 127.0.0.1 that knows only the
// lock's versions and takes their tarballs from npm's cache (filled by `npm ci`): no other network.
import { execFileSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
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

// The system's PATH as a user has it: this process's PATH without the clone and its node_modules.
export function systemPath(): string[] {
  return (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '' && !dir.includes('node_modules') && !dir.startsWith(ROOT));
}

// Runs the built `team` binary as a user would: a new process, in a folder, exit code and output as data.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

export const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
// What the package's bin names (package.json), as an installed `team` runs.
export const CLI = join(ROOT, 'dist/cli/team.cjs');

export interface TeamResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

// `team <args>` in `cwd`; never throws on a non-zero exit.
export async function runTeam(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<TeamResult> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does) before the tests`);
  const result = await execa('node', [CLI, ...args], { cwd: options.cwd, env: options.env, reject: false, stdin: 'ignore', stripFinalNewline: false });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

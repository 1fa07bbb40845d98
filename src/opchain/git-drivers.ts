// Registers the checkpoint merge driver in a clone: a `.gitattributes` line and `git config merge.<name>.driver`.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';

// The driver's name in `.gitattributes` and `.git/config`.
export const DRIVER_NAME = 'team-checkpoint';
export const ATTRIBUTES_LINE = `.checkpoints/*.checkpoint.json merge=${DRIVER_NAME}`;

// The command git runs: this node and the `team` CLI at `cli`, by absolute path (re-register after moving teamline).
export function driverCommand(cli: string): string {
  return `"${process.execPath}" "${cli}" merge-driver %O %A %B %P`;
}

// Adds the attributes line (once) and sets the driver in the repository's config; returns what changed.
export async function registerGitDrivers(projectDir: string, cli: string): Promise<string[]> {
  const done: string[] = [];
  const attributes = join(projectDir, '.gitattributes');
  const text = existsSync(attributes) ? readFileSync(attributes, 'utf8') : '';
  if (!text.split('\n').some((line) => line.trim() === ATTRIBUTES_LINE)) {
    appendFileSync(attributes, `${text && !text.endsWith('\n') ? '\n' : ''}${ATTRIBUTES_LINE}\n`);
    done.push(`.gitattributes: ${ATTRIBUTES_LINE}`);
  }
  const git = (args: string[]) => execa('git', args, { cwd: projectDir });
  await git(['config', `merge.${DRIVER_NAME}.name`, 'teamline opchain checkpoint (timestamp-only conflicts)']);
  await git(['config', `merge.${DRIVER_NAME}.driver`, driverCommand(cli)]);
  done.push(`git config merge.${DRIVER_NAME}.driver ${driverCommand(cli)}`);
  return done;
}

// Registers the checkpoint merge driver in a clone: a `.gitattributes` line and `git config merge.<name>.driver`.
import { join } from 'node:path';
import { execa } from 'execa';
import { UsageError } from '../sys/errors.js';
import { readRegularFile } from '../sys/regular-file.js';
import { writeFileInside } from '../sys/safe-write.js';

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
  const text = readAttributes(projectDir, attributes);
  if (!text.split('\n').some((line) => line.trim() === ATTRIBUTES_LINE)) {
    writeFileInside({ dir: projectDir, name: 'the project' }, attributes, `${text}${text && !text.endsWith('\n') ? '\n' : ''}${ATTRIBUTES_LINE}\n`);
    done.push(`.gitattributes: ${ATTRIBUTES_LINE}`);
  }
  const git = (args: string[]) => execa('git', args, { cwd: projectDir });
  await git(['config', `merge.${DRIVER_NAME}.name`, 'teamline opchain checkpoint (timestamp-only conflicts)']);
  await git(['config', `merge.${DRIVER_NAME}.driver`, driverCommand(cli)]);
  done.push(`git config merge.${DRIVER_NAME}.driver ${driverCommand(cli)}`);
  return done;
}

// `.gitattributes` is far smaller; a bigger file is not one to add a line to.
const MAX_ATTRIBUTES_BYTES = 1024 * 1024;

// The project's `.gitattributes` ('' when there is none); one that is not a regular file in the
// project (a FIFO, a link out of it) is bad input naming it.
function readAttributes(projectDir: string, file: string): string {
  const reading = readRegularFile(file, MAX_ATTRIBUTES_BYTES, { within: projectDir });
  if (reading.ok) return reading.text;
  if (reading.missing) return '';
  throw new UsageError(`--git-drivers: ${file}: ${reading.reason}; the merge driver's line cannot be added to it`);
}

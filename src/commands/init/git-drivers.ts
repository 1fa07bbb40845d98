// `team init --git-drivers`: the opchain checkpoint's merge driver, registered in the project's clone.
import { realpathSync } from 'node:fs';
import { execa } from 'execa';
import { UsageError } from '../../sys/errors.js';
import { ATTRIBUTES_LINE, DRIVER_NAME, driverCommand, registerGitDrivers } from '../../checkpoint/git-drivers.js';

// Registers (or with --print shows) the driver; refuses a folder that is not in a git work tree.
export async function initGitDrivers(root: string, print: boolean): Promise<number> {
  const inside = await execa('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, reject: false });
  if (inside.exitCode !== 0 || String(inside.stdout).trim() !== 'true') throw new UsageError(`--git-drivers: ${root} is not in a git work tree`);
  // The running CLI, by its real path: git calls it from any shell.
  const cli = realpathSync(process.argv[1]!);
  if (print) {
    process.stdout.write(`── .gitattributes: would hold ${ATTRIBUTES_LINE}\n── git config merge.${DRIVER_NAME}.driver '${driverCommand(cli)}'\n`);
    return 0;
  }
  for (const line of await registerGitDrivers(root, cli)) process.stdout.write(`git-driver ${line}\n`);
  return 0;
}

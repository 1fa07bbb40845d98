// The project folder a command works in, without its config: for the commands that start at once.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../../sys/errors.js';
import { optionalString, type ParsedArgs } from './args.js';

// A run's folder, or a folder inside it (`<project>/.team/runs/<run id>/…`).
const RUN_FOLDER = /^(.+)\/\.team\/runs\/([^/]+)(?:\/.*)?$/;

// The folder named by --cwd (default: the current folder); one that is not a folder is bad input.
// A run's folder (what a run prints at its end) names its project, and that run unless --run does.
export function openProjectDir(args: ParsedArgs): string {
  const dir = resolve(optionalString(args, 'cwd') ?? process.cwd());
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--cwd: ${dir} is not a folder`);
  const inRun = RUN_FOLDER.exec(dir);
  if (!inRun || !existsSync(join(inRun[1]!, '.team', 'runs', inRun[2]!, 'run.json'))) return dir;
  args.values.run ??= inRun[2]!;
  return inRun[1]!;
}

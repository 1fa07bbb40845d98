// The project folder a command works in, without its config: for the commands that start at once.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { optionalString, type ParsedArgs } from './args.js';

// The folder named by --cwd (default: the current folder); one that is not a folder is bad input.
export function openProjectDir(args: ParsedArgs): string {
  const dir = resolve(optionalString(args, 'cwd') ?? process.cwd());
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--cwd: ${dir} is not a folder`);
  return dir;
}

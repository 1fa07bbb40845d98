// The project a command works in: its folder and config.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../../config/errors.js';
import { loadConfig, type LoadedConfig } from '../../config/load.js';
import type { TeamConfig } from '../../config/schema.js';
import { UsageError } from '../errors.js';
import type { WriteOptions } from '../checkpoint/store.js';
import { optionalString, type FlagSpec, type ParsedArgs } from './args.js';

export interface Project {
  dir: string;
  config: TeamConfig;
  configFile?: string;
  write: WriteOptions;
}

// Flags every command that touches a project takes.
export const PROJECT_FLAGS: Record<string, FlagSpec> = {
  cwd: { type: 'string' },
  config: { type: 'string' },
};

// Opens the project named by --cwd (default: the current folder) with its config.
export function openProject(args: ParsedArgs): Project {
  const dir = resolve(optionalString(args, 'cwd') ?? process.cwd());
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--cwd: ${dir} is not a folder`);
  const { config, file } = readConfig(dir, optionalString(args, 'config'));
  return { dir, config, configFile: file, write: { fsync: config.team.fsync } };
}

// A config that cannot be used is bad input: exit 2, with the loader's message naming the field.
function readConfig(dir: string, explicitFile: string | undefined): LoadedConfig {
  try {
    return loadConfig(dir, explicitFile);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

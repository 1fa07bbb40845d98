// The project a command works in: its folder and config.
import { ConfigError } from '../../config/errors.js';
import { loadConfig, type LoadedConfig } from '../../config/load.js';
import type { TeamConfig } from '../../config/schema.js';
import { UsageError } from '../errors.js';
import type { WriteOptions } from '../checkpoint/store.js';
import { optionalString, type ParsedArgs } from './args.js';
import { openProjectDir, PROJECT_FLAGS } from './project-dir.js';

export { PROJECT_FLAGS };

export interface Project {
  dir: string;
  config: TeamConfig;
  configFile?: string;
  write: WriteOptions;
}

// Opens the project named by --cwd (default: the current folder) with its config.
export function openProject(args: ParsedArgs): Project {
  const dir = openProjectDir(args);
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

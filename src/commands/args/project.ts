// The project a command works in: its folder and config.
import { ConfigError } from '../../../config/errors.js';
import { loadConfig, type LoadedConfig } from '../../../config/load.js';
import type { TeamConfig } from '../../../config/schema.js';
import { UsageError } from '../../sys/errors.js';
import type { WriteOptions } from '../../log/write.js';
import { optionalString, type ParsedArgs } from './args.js';
import { openProjectDir } from './project-dir.js';

export interface Project {
  dir: string;
  config: TeamConfig;
  configFile?: string;
  write: WriteOptions;
}

// Opens the project named by --cwd (default: the current folder) with its config. A config naming a
// PostgreSQL store (team.store) is refused by the commands that do not read one yet (docs/scale-out.md).
export function openProject(args: ParsedArgs, options: { readsStore?: boolean } = {}): Project {
  const dir = openProjectDir(args);
  const { config, file } = readConfig(dir, optionalString(args, 'config'));
  if (config.team.store !== undefined && !options.readsStore) {
    throw new UsageError(`config ${file ?? '(defaults)'}: team.store names a PostgreSQL store, which only \`team\`, \`team ralph\`, \`team resume\`, \`team cancel\`, \`team wait\`, \`team worker\`, \`team status\`, \`team watch\`, \`team report\`, \`team list\`, \`team approve\` and \`team land\` work on so far; this command works on the files under .team/runs: remove team.store to use it`);
  }
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

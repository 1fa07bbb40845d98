// The project a command works in: its folder and config.
import { ConfigError } from '../../../config/errors.js';
import { loadConfig, parseConfig, type LoadedConfig } from '../../../config/load.js';
import { terminalText } from '../../sys/terminal-text.js';
import { readRegularFile } from '../../sys/regular-file.js';
import { join } from 'node:path';
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
// `readOnly` (status, wait, list, watch, report): a config that cannot be used is a warning, and the
// command reads the project's files with the defaults: a typo written while a run goes must not
// break an agent's `team wait` loop with a usage error (exit 2).
export function openProject(args: ParsedArgs, options: { readsStore?: boolean; readOnly?: boolean } = {}): Project {
  const dir = openProjectDir(args);
  const { config, file } = options.readOnly ? readConfigOrDefaults(dir, optionalString(args, 'config')) : readConfig(dir, optionalString(args, 'config'));
  if (config.team.store !== undefined && !options.readsStore) {
    throw new UsageError(`config ${file ?? '(defaults)'}: team.store names a PostgreSQL store, which only \`team\`, \`team ralph\`, \`team resume\`, \`team cancel\`, \`team wait\`, \`team worker\`, \`team status\`, \`team watch\`, \`team report\`, \`team list\`, \`team approve\` and \`team land\` work on so far; this command works on the files under .team/runs: remove team.store to use it`);
  }
  return { dir, config, configFile: file, write: { fsync: config.team.fsync } };
}

function readConfigOrDefaults(dir: string, explicitFile: string | undefined): LoadedConfig {
  // A file the user named with --config is their choice of the moment: its faults stay usage errors.
  if (explicitFile !== undefined) return readConfig(dir, explicitFile);
  try {
    return loadConfig(dir);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // The store the runs are in is kept: a read-only command must read the run where it is. A
    // store that is itself wrong leaves nothing to follow: that stays a usage error.
    const store = storeOf(dir);
    let config: TeamConfig;
    try {
      config = parseConfig(store === undefined ? {} : { team: { store } }, '(defaults)');
    } catch {
      throw new UsageError(error.message);
    }
    const where = store === undefined ? 'the runs under .team/runs' : 'the runs in team.store';
    process.stderr.write(`${terminalText(`team: warning: ${error.message}\n  (this command only reads: it goes on with the default config, reading ${where}; the next run or resume refuses the config until it is mended)`)}\n`);
    return { config };
  }
}

// The project config's team.store as written, read without trusting the rest of the file.
function storeOf(dir: string): unknown {
  const reading = readRegularFile(join(dir, '.team', 'config.json'), 1024 * 1024, { within: dir });
  if (!reading.ok) return undefined;
  try {
    return (JSON.parse(reading.text) as { team?: { store?: unknown } } | null)?.team?.store;
  } catch {
    return undefined;
  }
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

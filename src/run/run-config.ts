// The config a takeover runs a run with: `--config` when given, else the file the run started with
// (run_started.configFile) while it exists, else the project's. Whichever it is must define every
// agent the run uses, or the run is not touched: a config problem never becomes task failures.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../../config/errors.js';
import { loadConfig } from '../../config/load.js';
import type { TeamConfig } from '../../config/schema.js';
import type { FoldState } from '../log/fold/types.js';
import type { EventOf } from '../log/schema.js';
import { UsageError } from '../sys/errors.js';
import { isAgentName } from '../attempt/prepare/agents.js';

const ENDED = new Set(['completed', 'failed', 'cancelled']);

export interface RunConfig {
  config: TeamConfig;
  configFile?: string;
  /** One line saying which config is used, when it is not the one the command would read anyway. */
  note?: string;
}

// Chooses the run's config (see above) and refuses, with exit 2, one that lacks an agent the run uses.
export function chooseRunConfig(project: { dir: string; config: TeamConfig; configFile?: string }, explicit: boolean, st: FoldState, command: string): RunConfig {
  const started = st.started!;
  const chosen = explicit ? project : recordedConfig(project, started);
  // An ended run is refused as such by the command: no agent of it runs again.
  if (ENDED.has(st.status)) return chosen;
  const missing = agentsOfRun(st).filter((name) => !isAgentName(chosen.config, name));
  if (missing.length > 0) {
    const names = missing.map((name) => `"${name}"`).join(', ');
    const from = started.configFile ? ` (it started with --config ${started.configFile})` : '';
    throw new UsageError(`${command}: the run uses agent ${names}, which config ${chosen.configFile ?? '(defaults)'} does not define${from}: pass --config with a file that defines it under "agents"`);
  }
  return chosen;
}

// The config the run started with, when it recorded one other than the project's and it still exists.
function recordedConfig(project: { dir: string; config: TeamConfig; configFile?: string }, started: EventOf<'run_started'>): RunConfig {
  const recorded = started.configFile;
  if (recorded === undefined || (project.configFile !== undefined && resolve(project.configFile) === resolve(recorded))) return project;
  if (!existsSync(recorded)) return { ...project, note: `teamline: the config the run started with, ${recorded}, is gone: using ${project.configFile ?? 'the built-in defaults'}` };
  try {
    const loaded = loadConfig(project.dir, recorded);
    return { config: loaded.config, configFile: loaded.file, note: `teamline: using the config the run started with: ${recorded} (--config chooses another)` };
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`${error.message}\n(the config the run started with; --config chooses another)`);
    throw error;
  }
}

// Every agent name the run's attempts ran on or its roles run on.
function agentsOfRun(st: FoldState): string[] {
  const started = st.started!;
  const names = new Set([...Object.values(started.agents), started.defaultAgent]);
  for (const task of st.tasks.values()) for (const attempt of task.attempts) if (attempt.agent) names.add(attempt.agent);
  return [...names].filter((name) => name !== '');
}

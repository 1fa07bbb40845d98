// Loads and validates the project config; errors name the file and the field.
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { readRegularFile } from '../src/sys/regular-file.js';
import { didYouMean } from './did-you-mean.js';
import { ConfigError } from './errors.js';
import { configSchema, type TeamConfig } from './schema.js';
import { agentsByName } from '../workers/adapters/index.js';
import { sim } from '../workers/sim/adapter.js';

// A config is a few KB; a bigger file is not one.
const MAX_CONFIG_BYTES = 1024 * 1024;

export interface LoadedConfig {
  config: TeamConfig;
  /** The file it came from; undefined when defaults only. */
  file?: string;
}

// Reads `--config FILE` or `<project>/.team/config.json`; a missing project config means defaults.
export function loadConfig(projectDir: string, explicitFile?: string): LoadedConfig {
  const file = explicitFile ? resolve(explicitFile) : join(projectDir, '.team', 'config.json');
  // The project's config is read through no link out of the project; a file named by --config is the user's own choice.
  const reading = readRegularFile(file, MAX_CONFIG_BYTES, { within: explicitFile ? '/' : projectDir });
  if (!reading.ok && reading.missing) {
    if (explicitFile) throw new ConfigError(`config ${file}: no such file (from --config)`);
    return { config: parseConfig({}, '(defaults)') };
  }
  if (!reading.ok) throw new ConfigError(`config ${file}: cannot be read: ${reading.reason}`);
  let raw: unknown;
  try {
    raw = JSON.parse(reading.text);
  } catch (error) {
    throw new ConfigError(`config ${file}: not valid JSON${lineAndColumn(reading.text, (error as Error).message)}: ${(error as Error).message}`);
  }
  const config = parseConfig(raw, file);
  checkPromptFiles(config, file);
  return { config, file };
}

// Each prompts override must name a file, resolved against the config file's folder as the runtime does.
function checkPromptFiles(config: TeamConfig, file: string): void {
  for (const [stage, override] of Object.entries(config.prompts)) {
    const path = resolve(dirname(file), override);
    let problem: string | undefined;
    try {
      if (!statSync(path).isFile()) problem = 'is not a file';
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problem = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (error as Error).message})`;
    }
    if (problem) throw new ConfigError(`config ${file} is invalid:\n✖ prompts.${stage} names ${path}, which ${problem}\n  → at prompts.${stage}`);
  }
}

// Validates a config object; the message lists every wrong field with its path. Without zod's
// compiled fast path: a process parses its config once or twice, and building that path (new
// Function per schema) took 5 ms of a command's start against 2 ms for the parse without it.
export function parseConfig(raw: unknown, source: string): TeamConfig {
  const parsed = configSchema.safeParse(raw, { jitless: true });
  if (!parsed.success) throw new ConfigError(`config ${source} is invalid:\n${z.prettifyError(withSuggestions(parsed.error))}`);
  const config = parsed.data;
  for (const [role, agent] of Object.entries(config.roles)) {
    if (!(agent in config.agents) && !BUILTIN_AGENT_NAMES.has(agent)) {
      const known = [...Object.keys(config.agents), ...BUILTIN_AGENT_NAMES];
      throw new ConfigError(`config ${source} is invalid:\n✖ role "${role}" names agent "${agent}", which is neither in agents nor built in${didYouMean(agent, known)}\n  → at roles.${role}`);
    }
  }
  return config;
}

// Agent names usable without an `agents` entry: each adapter under its own name.
export const BUILTIN_AGENT_NAMES: ReadonlySet<string> = new Set(agentsByName({ sim }));

// " at line 3, column 14" of a JSON.parse error that names a position, else ''.
function lineAndColumn(text: string, message: string): string {
  const at = /position (\d+)/.exec(message);
  if (!at) return '';
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  return ` at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

// An unknown key's message with the known key nearest to it: "Unrecognized key: "maxFixLoop" (did you mean "maxFixLoops"?)".
function withSuggestions(error: z.ZodError): z.ZodError {
  for (const issue of error.issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const known = keysAt(issue.path);
    const hints = issue.keys.map((key) => didYouMean(key, known)).filter(Boolean);
    if (hints.length > 0) (issue as { message: string }).message = `${issue.message}${hints.join('')}`;
  }
  return error;
}

// The keys the config's schema knows at `path` (an object's, through defaults, optionals and records).
function keysAt(path: PropertyKey[]): string[] {
  let schema = unwrap(configSchema);
  for (const part of path) {
    const def = schema?._zod?.def;
    schema = unwrap(def?.type === 'record' ? def.valueType : schema?.shape?.[String(part)]);
  }
  return schema?.shape ? Object.keys(schema.shape) : [];
}

type SchemaLike = { shape?: Record<string, SchemaLike>; _zod?: { def?: { type?: string; innerType?: SchemaLike; valueType?: SchemaLike } } } | undefined;

// The schema inside defaults, optionals and the like.
function unwrap(schema: unknown): SchemaLike {
  let inner = schema as SchemaLike;
  for (let depth = 0; depth < 4 && inner?._zod?.def?.innerType; depth++) inner = inner._zod.def.innerType;
  return inner;
}

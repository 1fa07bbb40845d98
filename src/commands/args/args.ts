// Command-line parsing on node:util parseArgs; list flags take every value up to the next flag.
import { parseArgs } from 'node:util';
import { UsageError } from '../../sys/errors.js';

// A flag as the parser takes it and as `team <command> --help` describes it (src/commands/args/flags.ts).
export type FlagSpec = BooleanFlag | StringFlag;

interface FlagHelp {
  /** What the flag does, in a few words. */
  help: string;
  short?: string;
}

// A switch: off unless given.
export interface BooleanFlag extends FlagHelp {
  type: 'boolean';
  /** What applies without it, when more than "off" (`--headless`: the config's team.mode). */
  default?: string;
}

// A flag with a value.
export interface StringFlag extends FlagHelp {
  type: 'string';
  /** The value's name in help: `--run ID`. */
  value: string;
  /** What applies without it: a value, "required", or what the command does instead. */
  default: string;
  /** Takes several values: `--input a b` or `--input a --input b`. */
  list?: boolean;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

// Parses argv against the flags; an unknown flag or a missing value is a usage error naming it.
export function parseFlags(argv: string[], flags: Record<string, FlagSpec>, command: string): ParsedArgs {
  const options = Object.fromEntries(
    Object.entries(flags).map(([name, spec]) => [name, { type: spec.type, multiple: isList(spec), ...(spec.short ? { short: spec.short } : {}) }]),
  );
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    throw new UsageError(`${command}: ${refusal(error as Error & { code?: string }, command)}`);
  }
  const values = { ...parsed.values } as ParsedArgs['values'];
  const positionals: string[] = [];
  let lastList: string | undefined;
  for (const token of parsed.tokens ?? []) {
    if (token.kind === 'option') lastList = isList(flags[token.name]) ? token.name : undefined;
    else if (token.kind === 'positional') {
      if (lastList) (values[lastList] as string[]).push(token.value);
      else positionals.push(token.value);
    } else lastList = undefined;
  }
  return { values, positionals };
}

// What parseArgs refused, in the words of the other usage errors: the flag, and what to do.
function refusal(error: Error & { code?: string }, command: string): string {
  const flag = /'(-[^' ]+)/.exec(error.message)?.[1] ?? '';
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${flag} (\`${command} --help\` lists the options)`;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && /ambiguous/.test(error.message)) return `${flag} needs a value; a value that starts with "-" is given as ${flag}=-1`;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && /argument missing/.test(error.message)) return `${flag} needs a value`;
  return error.message.replace(/\. To specify a positional.*$/s, '');
}

function isList(spec: FlagSpec | undefined): boolean {
  return spec?.type === 'string' && spec.list === true;
}

// A string flag that must be present.
export function requireString(args: ParsedArgs, name: string, command: string): string {
  const value = args.values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`${command}: --${name} is required`);
  return value;
}

// A string flag that may be absent.
export function optionalString(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

// A list flag, empty when absent.
export function listOf(args: ParsedArgs, name: string): string[] {
  const value = args.values[name];
  return Array.isArray(value) ? value : [];
}

// A whole number flag within bounds.
export function optionalInt(args: ParsedArgs, name: string, command: string, min: number, max: number): number | undefined {
  const value = optionalString(args, name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new UsageError(`${command}: --${name} must be a whole number from ${min} to ${max}, not "${value}"`);
  }
  return number;
}

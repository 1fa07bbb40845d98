// Reads a run's files; a malformed or unknown file is ignored and reported, never trusted.
import { readdirSync } from 'node:fs';
import { UnreadableRunError } from '../sys/errors.js';
import { TEMP_PREFIX } from '../sys/atomic.js';
import { approvalSchema, EVENT_SCHEMAS, isEventName, type Approval, type TeamEvent } from './schema.js';
import { LIMITS } from './guards.js';
import { readRegularFile, readSmallFile } from '../sys/regular-file.js';
import type { LogDigest, LogPosition } from './digest.js';
import type { RunPaths, RunRecord } from './write.js';

export interface Problem {
  file: string;
  reason: string;
}

export interface RunFiles {
  run: RunRecord;
  /** Valid events, in the order written. */
  events: Array<TeamEvent & { file: string }>;
  approvals: Array<Approval & { file: string }>;
  problems: Problem[];
  /** Every event file name listed (temporary files aside), in order, read or skipped. */
  eventNames?: string[];
  /** The digest's position after the event file `digestAt` named, when it was read. */
  digestAt?: LogPosition;
}

// Event and approval file names: `<stamp>-<...>-<token>.json`.
const EVENT_FILE = /^\d{8}T\d{12}Z-[a-z_]+-.+-a\d+-[0-9a-z]{6}\.json$/;
const APPROVAL_FILE = /^\d{8}T\d{12}Z-.+-[0-9a-z]{6}\.json$/;

// Reads run.json, every event and every approval of a run; with `after`, only the event files whose
// names sort after it (a snapshot holds the fold of the others). With `digest`, every event file
// read (valid or not) is added to it, in order, and its position is taken after `digestAt`.
export function readRunFiles(paths: RunPaths, options: { after?: string; digest?: LogDigest; digestAt?: string } = {}): RunFiles {
  const problems: Problem[] = [];
  const run = readRunRecord(paths.runJson);
  const eventNames: string[] = [];
  const digest = options.digest;
  let digestAt: LogPosition | undefined;
  const onText = digest
    ? (name: string, text: string | undefined) => {
        digest.add(name, text);
        if (name === options.digestAt) digestAt = digest.position();
      }
    : undefined;
  const events = readFolder(paths.eventsDir, 'events', EVENT_FILE, problems, parseEvent, { after: options.after, names: eventNames, onText });
  const approvals = readFolder(paths.approvalsDir, 'approvals', APPROVAL_FILE, problems, parseApproval);
  return { run, events, approvals, problems, eventNames, ...(digestAt && { digestAt }) };
}

// run.json is written once; without it the run cannot be read, so a damaged one stops the command with its name.
// Read as a file anyone could have replaced: a FIFO, a link or a huge file is refused, never waited on.
function readRunRecord(file: string): RunRecord {
  // run.json is an event's size (its task is one event's field): the same bound.
  const reading = readRegularFile(file, LIMITS.eventBytes);
  let record: unknown;
  let problem = reading.ok ? undefined : reading.reason;
  try {
    if (reading.ok) record = JSON.parse(reading.text);
  } catch (error) {
    problem = (error as Error).message;
  }
  if (problem !== undefined) throw new UnreadableRunError(`${file} is unreadable or not valid JSON (${problem}); the run cannot be read`);
  const why = typeof record === 'object' && record !== null && !Array.isArray(record) ? runRecordProblem(record as Record<string, unknown>) : 'not a JSON object';
  if (why !== undefined) throw new UnreadableRunError(`${file} is not a run record (${why}); the run cannot be read`);
  return record as RunRecord;
}

// The fields of run.json every reader relies on: the seed's, all a run its helper wrote has.
const REQUIRED_RUN_FIELDS = ['run_id', 'created_at', 'profile', 'stage', 'status', 'session', 'parent_session'] as const;
// teamline's additions (the invocation): optional on read, but typed when present.
const OPTIONAL_RUN_FIELDS: Record<string, (value: unknown) => boolean> = {
  task: isString,
  agentType: isString,
  workers: (value) => Number.isInteger(value) && (value as number) > 0,
  mode: (value) => value === 'team' || value === 'ralph',
};

// Why a parsed run.json is not a run record, naming the field; undefined when it is one.
function runRecordProblem(record: Record<string, unknown>): string | undefined {
  const missing = REQUIRED_RUN_FIELDS.filter((field) => !isString(record[field]));
  if (missing.length > 0) return `${missing.join(', ')} must be ${missing.length === 1 ? 'a string' : 'strings'}`;
  const wrong = Object.keys(OPTIONAL_RUN_FIELDS).filter((field) => record[field] !== undefined && !OPTIONAL_RUN_FIELDS[field]!(record[field]));
  if (wrong.length > 0) return `${wrong.map((field) => `${field} ${JSON.stringify(record[field])}`).join(', ')}: ${wrong.length === 1 ? 'not a valid value' : 'not valid values'}`;
  return undefined;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function readFolder<T>(
  dir: string,
  label: string,
  pattern: RegExp,
  problems: Problem[],
  parse: (value: unknown) => T | string,
  listing: { after?: string; names?: string[]; onText?: (name: string, text: string | undefined) => void } = {},
): Array<T & { file: string }> {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (error) {
    // Never an empty log: a folder that cannot be listed (gone, a file, unreadable) stops the command.
    throw new UnreadableRunError(`${dir} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); the run's ${label} cannot be read`);
  }
  const out: Array<T & { file: string }> = [];
  // A problem's file is spelled only when there is one: most files have none.
  const report = (name: string, reason: string) => problems.push({ file: `${label}/${name}`, reason });
  for (const name of names) {
    const temporary = name.startsWith(TEMP_PREFIX);
    if (!temporary) {
      listing.names?.push(name);
      if (listing.after !== undefined && name <= listing.after) continue;
    }
    if (temporary) {
      report(name, 'stray temporary file (an interrupted write); ignored');
      continue;
    }
    if (!pattern.test(name)) {
      listing.onText?.(name, undefined);
      report(name, 'unexpected file name; ignored');
      continue;
    }
    // A folder, a FIFO, a link or an unreadable file under an event's name: reported, never opened in a way that blocks.
    const read = readSmallFile(`${dir}/${name}`, LIMITS.eventBytes);
    listing.onText?.(name, read.ok ? read.text : undefined);
    if (!read.ok) {
      report(name, `${read.reason}; ignored`);
      continue;
    }
    const parsed = parseRecordText(read.text, parse, 'file');
    if (typeof parsed === 'string') report(name, parsed);
    // The parsed value is a fresh object of our own: naming its file in place spares a copy per event.
    else {
      (parsed as T & { file: string }).file = name;
      out.push(parsed as T & { file: string });
    }
  }
  return out;
}

// An event as the log trusts it, or why it is not trusted.
// A record's text (an event or approval file, or a stored row) parsed and checked; otherwise why it is
// not trusted: empty, malformed JSON, or refused by its schema, ending in "; ignored".
export function parseRecordText<T>(text: string, parse: (value: unknown) => T | string, what: 'file' | 'record'): T | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Only text that does not parse can be empty: the check costs a copy, so it waits for a failure.
    return text.trim() === '' ? `empty ${what}; ignored` : `malformed JSON (${(error as Error).message}); ignored`;
  }
  const parsed = parse(value);
  return typeof parsed === 'string' ? `${parsed}; ignored` : parsed;
}

// zod's compiled fast path (new Function per schema, on its first parse) costs more to build than it
// saves on a small log: read with and without it, 200 events took 25–37 ms against 50–68 ms. On a
// long one it pays: resume's read of 10,000 events took 1.9x a plain read with it, 2.5x without. So a
// process reads its first records without it and the rest with it.
const JITLESS = { jitless: true } as const;
const COMPILED_AFTER = 2_000;
let parsed = 0;
function readOptions(): typeof JITLESS | undefined {
  parsed += 1;
  return parsed > COMPILED_AFTER ? undefined : JITLESS;
}

export function parseEvent(value: unknown): TeamEvent | string {
  const name = (value as { event?: unknown } | null)?.event;
  if (!isEventName(name)) return `unknown event ${JSON.stringify(name ?? null)}`;
  const result = EVENT_SCHEMAS[name].safeParse(value, readOptions());
  if (!result.success) return `invalid ${name} event: ${describeIssues(result.error.issues)}`;
  return result.data as TeamEvent;
}

// An approval as the log trusts it, or why it is not trusted.
export function parseApproval(value: unknown): Approval | string {
  const result = approvalSchema().safeParse(value, readOptions());
  return result.success ? result.data : `invalid approval: ${describeIssues(result.error.issues)}`;
}

function describeIssues(issues: Array<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

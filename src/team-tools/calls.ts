// The calls folder of an attempt: `team mcp` leaves each tool call there as a file, and whoever runs
// the attempt writes its answer beside it once the call is recorded. A call file is the agent's side:
// read as hostile (a regular file only, size-capped, zod).
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { TEMP_PREFIX, writeFileAtomic } from '../sys/atomic.js';
import { readRegularFile } from '../sys/regular-file.js';
import { TOOL_NAMES } from './tools.js';

export const CALLS_DIR = 'calls';
// A call is small; a team_done with a plan is the biggest (a bigger plan goes in the result file).
export const CALL_BYTES = 1024 * 1024;
const KEY = /^c-[0-9a-f]{16}$/;

export const callSchema = z.strictObject({ key: z.string().regex(KEY), tool: z.enum(TOOL_NAMES as [string, ...string[]]), args: z.unknown(), at: z.string() });
export type ToolCall = z.infer<typeof callSchema>;

const answerSchema = z.strictObject({ ok: z.boolean(), answer: z.unknown() });
export type CallAnswer = z.infer<typeof answerSchema>;

// A call's file name ends so; its answer's `.answer.json`.
export const CALL_SUFFIX = '.call.json';
const callName = (key: string) => `${key}${CALL_SUFFIX}`;
export const answerName = (key: string) => `${key}.answer.json`;

// Leaves a call for the writer.
export function writeCall(attemptDir: string, call: ToolCall): void {
  const dir = join(attemptDir, CALLS_DIR);
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(dir, callName(call.key), JSON.stringify(call), { fsync: false });
}

// The calls without an answer, in the order made; those that cannot be read as calls, by file name.
export function readOpenCalls(attemptDir: string): { calls: ToolCall[]; unreadable: Array<{ name: string; reason: string }> } {
  const dir = join(attemptDir, CALLS_DIR);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => !n.startsWith(TEMP_PREFIX));
  } catch {
    return { calls: [], unreadable: [] };
  }
  const answered = new Set(names.filter((n) => n.endsWith('.answer.json')).map((n) => n.slice(0, -'.answer.json'.length)));
  const calls: ToolCall[] = [];
  const unreadable: Array<{ name: string; reason: string }> = [];
  for (const name of names) {
    if (!name.endsWith(CALL_SUFFIX) || answered.has(name.slice(0, -CALL_SUFFIX.length))) continue;
    const read = readCallFile(dir, name);
    if (read === undefined) continue;
    if ('call' in read) calls.push(read.call);
    else unreadable.push({ name, reason: read.reason });
  }
  return { calls: calls.sort((a, b) => a.at.localeCompare(b.at)), unreadable };
}

// One call file: the call, why it is not one, or undefined when it is gone.
function readCallFile(dir: string, name: string): { call: ToolCall } | { reason: string } | undefined {
  const reading = readRegularFile(join(dir, name), CALL_BYTES);
  if (!reading.ok) return reading.missing ? undefined : { reason: reading.reason };
  const call = parseJson(reading.text, callSchema);
  return call === undefined || `${call.key}${CALL_SUFFIX}` !== name ? { reason: 'not a tool call' } : { call };
}

// Answers a call (a second answer replaces nothing the agent has read: the server reads one).
export function writeAnswer(attemptDir: string, key: string, answer: CallAnswer): void {
  writeFileAtomic(join(attemptDir, CALLS_DIR), answerName(key), JSON.stringify(answer), { fsync: false });
}

// The answer to a call, when there is one.
export function readAnswer(attemptDir: string, key: string): CallAnswer | undefined {
  const reading = readRegularFile(join(attemptDir, CALLS_DIR, answerName(key)), CALL_BYTES);
  return reading.ok ? parseJson(reading.text, answerSchema) : undefined;
}

// The name a call file has, for an answer to one that cannot be read.
export function keyOfCallFile(name: string): string | undefined {
  const key = name.endsWith('.call.json') ? name.slice(0, -'.call.json'.length) : '';
  return KEY.test(key) ? key : undefined;
}

function parseJson<T>(text: string, schema: z.ZodType<T>): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

// The calls without an answer, the unreadable ones answered at once with why (the agent waits on
// each call it made: none is left without an answer). With `name` (a call file a change notice
// named), that call alone, unless answered: no listing of a folder that grows by two files a call.
export function takeOpenCalls(attemptDir: string, name?: string): ToolCall[] {
  const open = name === undefined ? readOpenCalls(attemptDir) : readOpenCall(attemptDir, name);
  for (const bad of open.unreadable) {
    const key = keyOfCallFile(bad.name);
    if (key) writeAnswer(attemptDir, key, { ok: false, answer: { error: `the call could not be read: ${bad.reason}` } });
  }
  return open.calls;
}

function readOpenCall(attemptDir: string, name: string): { calls: ToolCall[]; unreadable: Array<{ name: string; reason: string }> } {
  const dir = join(attemptDir, CALLS_DIR);
  const key = keyOfCallFile(name);
  if (key === undefined || existsSync(join(dir, answerName(key)))) return { calls: [], unreadable: [] };
  const read = readCallFile(dir, name);
  if (read === undefined) return { calls: [], unreadable: [] };
  return 'call' in read ? { calls: [read.call], unreadable: [] } : { calls: [], unreadable: [{ name, reason: read.reason }] };
}

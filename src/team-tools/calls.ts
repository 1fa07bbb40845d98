// The calls folder of an attempt: `team mcp` leaves each tool call there as a file, and whoever runs
// the attempt writes its answer beside it once the call is recorded. A call file is the agent's side:
// read as hostile (a regular file only, size-capped, zod).
import { mkdirSync, readdirSync } from 'node:fs';
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
    if (!name.endsWith('.call.json')) continue;
    const key = name.slice(0, -'.call.json'.length);
    if (answered.has(key)) continue;
    const reading = readRegularFile(join(dir, name), CALL_BYTES);
    if (!reading.ok) {
      if (!reading.missing) unreadable.push({ name, reason: reading.reason });
      continue;
    }
    const call = parseJson(reading.text, callSchema);
    if (call === undefined || call.key !== key) unreadable.push({ name, reason: 'not a tool call' });
    else calls.push(call);
  }
  return { calls: calls.sort((a, b) => a.at.localeCompare(b.at)), unreadable };
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
// each call it made: none is left without an answer).
export function takeOpenCalls(attemptDir: string): ToolCall[] {
  const open = readOpenCalls(attemptDir);
  for (const bad of open.unreadable) {
    const key = keyOfCallFile(bad.name);
    if (key) writeAnswer(attemptDir, key, { ok: false, answer: { error: `the call could not be read: ${bad.reason}` } });
  }
  return open.calls;
}

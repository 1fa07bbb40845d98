// What each wire protocol shares: finding the teamline prompt in a request body, choosing the
// next step, and the SSE framing.
import type { ServerResponse } from 'node:http';
import { nextStep, readPrompt, type PromptFacts, type Step } from './scenario.js';

// One answered model call, kept for the tests' assertions.
export interface ModelCall {
  api: string;
  key: string;
  /** The teamline stage and task, when the request carried a teamline prompt. */
  facts?: PromptFacts;
  /** The tool outputs the CLI sent back so far. */
  outputs: string[];
  step?: Step;
  /** The model the request asked for (its body's `model`; gemini names it in the path). */
  model?: string;
  /** The names of the tools the request offered. */
  tools?: string[];
  /** Input tokens the server said its prompt cache served (cachedOf). */
  cached: number;
}

// The teamline prompt among the strings of a request body (the first one that is one).
export function findPrompt(body: unknown): PromptFacts | undefined {
  for (const text of strings(body)) {
    const facts = readPrompt(text);
    if (facts) return facts;
  }
  return undefined;
}

// Every string in a request body, depth first.
export function* strings(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const item of value) yield* strings(item);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) yield* strings(item);
}

// Text of a tool output in any of the shapes the APIs use (string, parts, nested objects).
export function textOf(value: unknown): string {
  return [...strings(value)].join('\n');
}

// The step for a call: scripted for a teamline prompt with tools, plain text otherwise.
export function decide(cli: string, facts: PromptFacts | undefined, hasTools: boolean, outputs: string[], toolNames: string[] = []): Step {
  if (!facts || !hasTools) return { kind: 'final', text: 'teamline task' };
  return nextStep(cli, facts, outputs, toolNames);
}

// Starts an SSE response.
export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

// One SSE event: `event:` line (when named) and a JSON `data:` line.
export function sendEvent(res: ServerResponse, data: unknown, event?: string): void {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

// A JSON response.
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

let counter = 0;
// A unique id with a prefix, e.g. toolu_1a.
export function makeId(prefix: string): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter.toString(36)}`;
}

// Token counts reported for every call: fixed, so that the tests can check the sums. `cached` of
// the input come from the prompt cache when the call's prompt prefix was sent before (cachedOf).
export const USAGE = { input: 120, output: 30, cached: 60 };

// The provider's prompt cache, as the server plays it: a call whose teamline prompt's shared part
// (all before the task's or the attempt's own section) an earlier call sent is served USAGE.cached of
// its input from the cache, as the providers do for a repeated prefix; 0 for a first sight.
const sentPrefixes = new Set<string>();
const OWN_SECTIONS = ['## Your task:', '## Your defect:', '## This attempt'];
// A call's answer, once decided (the server records it, the protocol reports it).
const decided = new WeakMap<object, number>();
export function cachedOf(body: unknown): number {
  if (typeof body !== 'object' || body === null) return 0;
  const known = decided.get(body);
  if (known !== undefined) return known;
  const cached = firstSight(body);
  decided.set(body, cached);
  return cached;
}

function firstSight(body: unknown): number {
  for (const text of strings(body)) {
    if (!readPrompt(text)) continue;
    const cut = Math.min(...OWN_SECTIONS.map((mark) => text.indexOf(mark)).filter((at) => at >= 0));
    const prefix = Number.isFinite(cut) ? text.slice(0, cut) : text;
    if (sentPrefixes.has(prefix)) return USAGE.cached;
    sentPrefixes.add(prefix);
    return 0;
  }
  return 0;
}

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

// Token counts reported for every call: fixed, so that the tests can check the sums.
export const USAGE = { input: 120, output: 30 };

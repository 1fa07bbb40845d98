// A rate limit or an overload told from a CLI's words (HTTP 429 / 529, "rate limit", "overloaded",
// a retry-after it printed): not a failure, but a reason to wait. A spent balance (`quota`,
// failures.ts) is not one: no wait brings it back.
import type { RateLimit } from '../types.js';

// The words of a rate limit or an overload, in the CLIs' and the APIs' own terms.
const LIMIT_WORDS = /\b(?:429|529)\b.{0,40}(?:too many requests|overloaded|rate)|(?:status|http|error|code)\D{0,12}\b(?:429|529)\b|rate[ _-]?limit(?:ed|_error|_exceeded)?|too many requests|overloaded(?:_error)?|resource[_ ]exhausted/i;
// A spent balance: no back-off helps (failures.ts classifies it as quota).
// gemini's words for a spent daily quota (its TerminalQuotaError: a QuotaFailure per day, or `limit: 0`).
const QUOTA_WORDS = /insufficient_quota|credit balance|billing|usage limit|quota exceeded|exceeded your current quota|daily quota|limit:\s*0(?![\d.])/i;
// "retry-after: 40", "retry_after_ms": 1500, "try again in 1.5s", "retry in 20 seconds".
const AFTER = /(?:retry[-_ ]?after(?:[-_ ]?(ms))?|retry_delay_ms|(?:try again|retry(?:ing)?) in)["':= ]{0,4}(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?|m|min|minutes?)?\b/i;
// What the reason quotes of the CLI's words at most.
const MAX_REASON_CHARS = 300;

// A rate limit in the text (lines of a CLI's output), with the wait it asks for when it names one.
// The reason is the CLI's own sentence: the last line with the limit's words, a JSON line's message
// rather than its JSON, whole up to a bound and cut at a word.
export function readRateLimit(text: string): RateLimit | undefined {
  if (!LIMIT_WORDS.test(text) || QUOTA_WORDS.test(text)) return undefined;
  const retryAfterMs = readRetryAfterMs(text);
  const said = text
    .split(/\r?\n/)
    .map(wordsOfLine)
    .filter((line) => LIMIT_WORDS.test(line))
    .at(-1);
  return { reason: capAtWord(said ?? text.replace(/\s+/g, ' ').trim(), MAX_REASON_CHARS), ...(retryAfterMs !== undefined && { retryAfterMs }) };
}

// What a line says: a JSON record's message (codex's `{"type":"error","message":…}`, an item's or an
// error's message), else the line itself, in single spaces.
function wordsOfLine(line: string): string {
  const trimmed = line.trim();
  if (trimmed.startsWith('{')) {
    try {
      const message = messageOf(JSON.parse(trimmed) as unknown, 0);
      if (message !== undefined) return message.replace(/\s+/g, ' ').trim();
    } catch {
      // Not JSON after all (or cut off): the words as printed.
    }
  }
  return trimmed.replace(/\s+/g, ' ');
}

function messageOf(value: unknown, depth: number): string | undefined {
  if (typeof value !== 'object' || value === null || depth > 2) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.message === 'string' && record.message.trim() !== '') return record.message;
  for (const key of ['error', 'item', 'msg']) {
    if (typeof record[key] === 'string' && depth > 0) return record[key] as string;
    const inner = messageOf(record[key], depth + 1);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

// A CLI's words of an error as a person reads them: JSON in them (a whole JSON line, or claude's
// "API Error: 429 {…}") gives its message in its place; whole up to `max`, cut at a word.
export function plainReason(text: string, max = MAX_REASON_CHARS): string {
  const words = wordsOfLine(text);
  const brace = words.indexOf('{');
  if (brace > 0) {
    try {
      const message = messageOf(JSON.parse(words.slice(brace)) as unknown, 0);
      if (message !== undefined) return capAtWord(`${words.slice(0, brace).trim()} ${message.replace(/\s+/g, ' ').trim()}`, max);
    } catch {
      // Not JSON to its end: the words as they are.
    }
  }
  return capAtWord(words, max);
}

// The text whole when it fits, else cut at the last space before `max` characters, with an ellipsis.
export function capAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:|]+$/, '')}…`;
}

// The HTTP statuses of a rate limit (429) or an overload (529; 503 is gemini's UNAVAILABLE).
const LIMIT_STATUSES = new Set([429, 503, 529]);

// A rate limit told from an API error's HTTP status, as a CLI reports it: `reason` is the CLI's
// words (they should name the status), `text` all it printed of the error (a spent balance's
// words in it make it no rate limit), `retryAfterMs` the wait the CLI passed on.
export function rateLimitOfStatus(status: unknown, reason: string, text: string, retryAfterMs?: number): RateLimit | undefined {
  return typeof status === 'number' && LIMIT_STATUSES.has(status) ? makeRateLimit(reason, text, retryAfterMs) : undefined;
}

// The same for an error the CLI itself took for a rate limit or an overload.
export function makeRateLimit(reason: string, text: string, retryAfterMs?: number): RateLimit | undefined {
  if (QUOTA_WORDS.test(text)) return undefined;
  const wait = retryAfterMs ?? readRetryAfterMs(text);
  return { reason: reason.replace(/\s+/g, ' ').trim().slice(0, MAX_REASON_CHARS), ...(wait !== undefined && { retryAfterMs: wait }) };
}

// The wait of an HTTP response's `retry-after-ms` or `retry-after` (seconds or an HTTP date) header.
export function readRetryAfterHeader(headers: Record<string, unknown> | undefined, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(String(headers?.['retry-after-ms'] ?? ''));
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const after = headers?.['retry-after'];
  if (typeof after !== 'string') return undefined;
  const seconds = Number.parseFloat(after);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(after);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

// The wait a text asks for, in ms: seconds unless it says ms or minutes.
export function readRetryAfterMs(text: string): number | undefined {
  const match = AFTER.exec(text);
  if (!match) return undefined;
  const value = Number(match[2]);
  const unit = (match[1] ?? match[3] ?? (/retry_delay_ms/i.test(match[0]) ? 'ms' : 's')).toLowerCase();
  const ms = unit.startsWith('ms') || unit.startsWith('milli') ? value : unit.startsWith('m') ? value * 60_000 : value * 1000;
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

// A rate limit or an overload told from a CLI's words (HTTP 429 / 529, "rate limit", "overloaded",
// a retry-after it printed): not a failure, but a reason to wait. A spent balance (`quota`,
// failures.ts) is not one: no wait brings it back.
import type { RateLimit } from '../types.js';

// The words of a rate limit or an overload, in the CLIs' and the APIs' own terms.
const LIMIT_WORDS = /\b(?:429|529)\b.{0,40}(?:too many requests|overloaded|rate)|(?:status|http|error|code)\D{0,12}\b(?:429|529)\b|rate[ _-]?limit(?:ed|_error|_exceeded)?|too many requests|overloaded(?:_error)?|resource[_ ]exhausted/i;
// A spent balance: no back-off helps (failures.ts classifies it as quota).
const QUOTA_WORDS = /insufficient_quota|credit balance|billing|usage limit|quota exceeded|exceeded your current quota/i;
// "retry-after: 40", "retry_after_ms": 1500, "try again in 1.5s", "retry in 20 seconds".
const AFTER = /(?:retry[-_ ]?after(?:[-_ ]?(ms))?|retry_delay_ms|(?:try again|retry(?:ing)?) in)["':= ]{0,4}(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?|m|min|minutes?)?\b/i;
// What the reason quotes of the CLI's words at most.
const MAX_REASON_CHARS = 300;

// A rate limit in the text, with the wait it asks for when it names one.
export function readRateLimit(text: string): RateLimit | undefined {
  const match = LIMIT_WORDS.exec(text);
  if (!match || QUOTA_WORDS.test(text)) return undefined;
  const retryAfterMs = readRetryAfterMs(text);
  const start = Math.max(0, match.index - 80);
  return { reason: text.slice(start, start + MAX_REASON_CHARS).replace(/\s+/g, ' ').trim(), ...(retryAfterMs !== undefined && { retryAfterMs }) };
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

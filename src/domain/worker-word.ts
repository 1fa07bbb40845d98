// A team worker's words in the store's rows (its id, its host, an output line, a retry's reason):
// anyone who can write the database could have written them, so they are checked like an agent's
// text before the log or a view holds them.
import { terminalLine } from '../sys/terminal-text.js';
import { guardCliText } from './result-guard.js';

// Words longer than this are cut, with an ellipsis.
const WORD_LIMIT = 200;

// The worker's word, guarded and bounded; `fallback` when it is missing or not text.
export function workerWord(value: unknown, fallback: string): string {
  if (typeof value !== 'string' || value === '') return fallback;
  const guarded = guardCliText(terminalLine(value));
  return guarded.length > WORD_LIMIT ? `${guarded.slice(0, WORD_LIMIT - 1)}…` : guarded;
}


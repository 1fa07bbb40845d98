// The last meaningful lines of a CLI's console output: the evidence when it printed no record.
import { terminalText } from '../../src/sys/terminal-text.js';

// Stack frames and blank lines say nothing about why.
const NOISE = /^(at\s|\s*$)/;
// Evidence stays one readable line.
const MAX_CHARS = 500;

// The text without a terminal's colour, cursor and title codes (or any other control).
export function stripAnsi(text: string): string {
  return terminalText(text);
}

// Up to `count` last non-blank, non-stack-frame lines, joined by " | ".
export function lastMeaningfulLines(output: string, count = 3): string {
  const text = lastMeaningfulLineList(output, count).join(' | ');
  return text.length > MAX_CHARS ? `…${text.slice(-(MAX_CHARS - 1))}` : text;
}

// Up to `count` last non-blank, non-stack-frame lines, each whole.
export function lastMeaningfulLineList(output: string, count = 3): string[] {
  return stripAnsi(output)
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => !NOISE.test(line))
    .slice(-count);
}

// Each complete JSON object line of `lines` (the records of a JSONL stream), others skipped.
export function parseJsonLines(lines: string[]): Array<Record<string, unknown>> {
  const records: Array<Record<string, unknown>> = [];
  for (const line of lines) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    try {
      const value = JSON.parse(trimmed) as unknown;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) records.push(value as Record<string, unknown>);
    } catch {
      // A partial or non-JSON line.
    }
  }
  return records;
}

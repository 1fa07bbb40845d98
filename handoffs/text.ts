// Small text helpers for handoffs: one line per fact, bounded length, counted nouns.
import { basename } from 'node:path';

// A detail line longer than this is cut: a handoff is read by people and by the next prompt.
export const LINE_CHARS = 240;

// Evidence and descriptions are cut shorter, so several fit on a line with their task id.
export const EVIDENCE_CHARS = 160;

// Flattens whitespace (newlines included) and cuts the text to `max` characters.
export function toLine(text: string, max = LINE_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

// Evidence as a short one-line quote, or the fact that there was none.
export function toEvidence(text: string): string {
  const line = toLine(text, EVIDENCE_CHARS);
  return line ? line : 'no evidence recorded';
}

// "1 task", "3 tasks": a count with its noun.
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}

// A list in words, or `empty` when there is nothing to list.
export function listOf(items: string[], empty = 'none'): string {
  return items.length === 0 ? empty : items.join(', ');
}

// The file name of a path, for compact lists of handoffs and artifacts.
export function toFileName(path: string): string {
  return basename(path) || path;
}

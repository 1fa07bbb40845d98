// A stored record's text read as the file reader reads an event file: an empty text, malformed JSON
// or a body its schema refuses is a reason, reported and never trusted.
import { parseApproval, parseEvent } from '../checkpoint/read.js';
import type { Approval, TeamEvent } from '../../machines/events.js';

// The parsed record, or why it is not trusted (ending in "; ignored", as the file reader says).
export function parseBody<T>(text: string, parse: (value: unknown) => T | string): T | string {
  if (text.trim() === '') return 'empty record; ignored';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `malformed JSON (${(error as Error).message}); ignored`;
  }
  const parsed = parse(value);
  return typeof parsed === 'string' ? `${parsed}; ignored` : parsed;
}

// An event body, or why it is not trusted.
export function parseEventBody(text: string): TeamEvent | string {
  return parseBody(text, parseEvent);
}

// An approval body, or why it is not trusted.
export function parseApprovalBody(text: string): Approval | string {
  return parseBody(text, parseApproval);
}

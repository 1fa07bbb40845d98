// A stored record's text read as the file reader reads an event file: an empty text, malformed JSON
// or a body its schema refuses is a reason, reported and never trusted.
import { parseApproval, parseEvent, parseRecordText } from '../log/read.js';
import type { Approval, TeamEvent } from '../log/schema.js';

// An event body, or why it is not trusted.
export function parseEventBody(text: string): TeamEvent | string {
  return parseRecordText(text, parseEvent, 'record');
}

// An approval body, or why it is not trusted.
export function parseApprovalBody(text: string): Approval | string {
  return parseRecordText(text, parseApproval, 'record');
}

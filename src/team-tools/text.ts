// Text a worker or the person hands to the team (a message, a note): checked like all agent text.
import { validateText } from '../log/guards.js';
import { UsageError } from '../sys/errors.js';

// A message or a note is short: a summary, not a report.
export const TEAM_TEXT_MAX = 2_000;

// Control characters other than a newline or a tab: they would garble a terminal that shows the text.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

// The text when it is short, holds no control character and no secret; otherwise a UsageError naming `what`.
export function checkTeamText(text: string, what: string): string {
  if (text.trim() === '') throw new UsageError(`${what}: empty`);
  if (CONTROL.test(text)) throw new UsageError(`${what}: refused, it holds a control character`);
  return validateText(text, what, TEAM_TEXT_MAX);
}

// The message text or why it is refused, as data (for answers to agents and inbox refusals).
export function teamTextProblem(text: string, what: string): string | undefined {
  try {
    checkTeamText(text, what);
    return undefined;
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
}

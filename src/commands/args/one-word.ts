// A bare single word is more often a mistyped command than a task: refuse it before any run exists.
import { UsageError } from '../../sys/errors.js';

// Every `team <command>`; `team "task"` has no name of its own.
export const COMMAND_NAMES = ['ralph', 'status', 'resume', 'cancel', 'attach', 'approve', 'state', 'wait', 'list', 'init', 'merge-driver', 'watch', 'report', 'checkpoint', 'help', 'land', 'restore', 'clean', 'worker', 'doctor'] as const;

// Throws a usage error for a task of one word: the closest command, or how to run a one-word task.
// An empty or blank task is no word: the caller says it is empty.
export function refuseOneWordTask(task: string, cmd: string): void {
  if (task.trim() === '' || /\s/.test(task.trim())) return;
  const word = task.trim();
  const prefix = cmd === 'team' ? '' : `${cmd}: `;
  const near = closestCommand(word);
  if (near) throw new UsageError(`${prefix}"${word}" is not a command; did you mean \`team ${near}\`?`);
  throw new UsageError(`${prefix}"${word}" is not a command, and a task is a sentence (quote it: team "add input validation to the API"); \`--task ${word}\` runs a one-word task`);
}

// The command within a small edit distance of `word`, if one is.
export function closestCommand(word: string): string | undefined {
  const lower = word.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of COMMAND_NAMES) {
    const distance = editDistance(lower, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= (word.length > 5 ? 2 : 1) ? best.name : undefined;
}

// Levenshtein distance with adjacent transpositions counted as one edit ("stauts" → "status").
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

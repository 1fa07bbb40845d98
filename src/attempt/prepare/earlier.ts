// What a retried attempt is told of the attempt before it: how it ended, and the changes the folder
// it works in holds (an earlier attempt's files are kept, never thrown away: the agent reads them
// before it changes them, as claude's write tool demands of a file its session has not read).
import { git, linesOf } from '../../git/git.js';
import type { TaskView } from '../../log/fold/types.js';

// The changes listed at most; the rest are counted.
const CHANGES_SHOWN = 20;
// An earlier attempt's evidence, cut at this length.
const EVIDENCE_CHARS = 300;

export interface EarlierAttempt {
  attempt: number;
  status: string;
  evidence: string;
  /** "modified src/a.ts", "added world.txt": the folder's changes since the task's attempts began
   * (teamline's commits of their leftovers, and what is not committed); undefined when unknown. */
  changes?: string[];
}

// The attempt before `attempt` of the task, with the changes of `workDir` (unknown for a folder that
// is not a git checkout; a team worker's folder is on its own machine: earlierEnd alone).
export async function earlierAttempt(task: TaskView | undefined, attempt: number, workDir: string, runId: string): Promise<EarlierAttempt | undefined> {
  const end = earlierEnd(task, attempt);
  if (!end) return undefined;
  const changes = await folderChanges(workDir, `team ${runId}: ${task!.id} attempt `);
  return { ...end, ...(changes && { changes }) };
}

// How the attempt before `attempt` ended, from the log alone (a team worker's folder is its own).
export function earlierEnd(task: TaskView | undefined, attempt: number): EarlierAttempt | undefined {
  const before = task?.attempts.filter((a) => a.attempt < attempt && a.status !== 'running').at(-1);
  return before && { attempt: before.attempt, status: before.status, evidence: before.evidence };
}

// The folder's changes since the task's earlier attempts began: those teamline committed for them
// on the task's branch (subjects `team <run>: <task> attempt N (…)`, at the tip), and any not committed.
async function folderChanges(dir: string, subject: string): Promise<string[] | undefined> {
  const [status, log] = await Promise.all([git(dir, ['status', '--porcelain=v1', '--untracked-files=all']), git(dir, ['log', '--format=%H%x09%s', '-n', '50'])]).catch(() => [undefined, undefined]);
  if (!status?.ok) return undefined;
  const changes = new Map<string, string>();
  const saved = log?.ok ? linesOf(log.stdout).map((line) => line.split('\t')) : [];
  let oldest: string | undefined;
  for (const [hash, title] of saved) {
    if (!title?.startsWith(subject)) break;
    oldest = hash;
  }
  if (oldest !== undefined) {
    const diff = await git(dir, ['diff', '--name-status', '--no-renames', `${oldest}^`, 'HEAD']);
    if (diff.ok) for (const line of linesOf(diff.stdout)) changes.set(line.slice(2).trim(), WORDS[line[0]!] ?? 'changed');
  }
  for (const line of linesOf(status.stdout)) changes.set(line.slice(3), WORDS[line.slice(0, 2).trim()[0] ?? '?'] ?? 'changed');
  return [...changes].map(([path, word]) => `${word} ${path}`);
}

const WORDS: Record<string, string> = { '?': 'added', A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', U: 'conflicted' };

// The prompt's section (after the template, with the messages: the part that differs per attempt).
export function earlierSection(earlier: EarlierAttempt): string {
  const evidence = earlier.evidence.replace(/\s+/g, ' ').trim();
  const ended = `${earlier.status}${evidence ? `: ${evidence.length > EVIDENCE_CHARS ? `${evidence.slice(0, EVIDENCE_CHARS - 1)}…` : evidence}` : ''}`;
  const lines = ['## The attempt before this one', '', `Attempt ${earlier.attempt} of this task ended ${ended}.`];
  if (earlier.changes === undefined) return lines.join('\n');
  if (earlier.changes.length === 0) return [...lines, 'The folder you work in holds no change of it.'].join('\n');
  const shown = earlier.changes.slice(0, CHANGES_SHOWN).map((c) => `- ${c}`);
  const more = earlier.changes.length > CHANGES_SHOWN ? [`- … and ${earlier.changes.length - CHANGES_SHOWN} more (git status and git log list them)`] : [];
  return [...lines, 'The folder you work in still holds its changes, kept for you: read each file before you change or overwrite it, and build on what is right.', '', ...shown, ...more].join('\n');
}

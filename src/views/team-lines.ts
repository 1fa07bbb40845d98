// What the views show of the team tools (issue 28): the workers' messages to the lead, the questions
// among them not yet answered (those need the person), reservations and their overlaps, progress notes.
import type { RunView } from '../log/fold/fold.js';
import type { TeamMessage } from '../log/fold/team.js';
import { messagesToLead } from '../log/fold/team.js';
import { undeliveredMessages } from '../log/reach.js';
import { terminalLine } from '../sys/terminal-text.js';

// How many of the latest messages to the lead a view lists.
const SHOWN = 8;

// The questions to the lead that the person has not answered (`team say` to the asker or its task
// since) and still can: a question whose task has ended went unanswered, and no answer reaches it now.
export function openQuestions(view: Pick<RunView, 'team' | 'tasks'>): TeamMessage[] {
  const ended = new Set(view.tasks.filter((t) => t.status === 'completed' || t.status === 'failed').map((t) => t.id));
  return messagesToLead(view.team).filter((q) => q.question && !(q.task !== undefined && ended.has(q.task)) && !view.team.messages.some((m) => m.from === 'human' && (m.to === q.from || m.to === q.task) && m.at >= q.at));
}

// Needs attention: each open question, with how to answer it.
export function questionLines(view: Pick<RunView, 'team' | 'tasks'>): string[] {
  return openQuestions(view).map((q) => `question from ${sender(q)}: ${oneLine(q.text)} — answer with \`team say --to ${q.task ?? q.from} "…"\``);
}

// Needs attention: each message nobody read and nobody will (a `team say` to a task that ended, to a
// drained worker, or sent as the run ended).
export function undeliveredLines(view: Pick<RunView, 'team' | 'tasks' | 'run' | 'pipeline' | 'endedAt'>): string[] {
  return undeliveredMessages(view).map((u) => `undelivered: message from ${sender(u.message)} to ${u.message.to} at ${u.message.at.slice(11, 19)} (${u.why}): ${oneLine(u.message.text)}`);
}

// The team's lines: messages to the lead, reservations and overlaps, the latest progress notes of
// running attempts (what needs attention of the team, its questions and undelivered messages, is in
// the views' one attention list).
export function teamLines(view: Pick<RunView, 'team' | 'tasks' | 'run' | 'pipeline' | 'endedAt'>): string[] {
  const lines: string[] = [];
  const toLead = messagesToLead(view.team);
  for (const m of toLead.slice(-SHOWN)) lines.push(`${m.question ? 'question' : 'message'} from ${sender(m)} at ${m.at.slice(11, 19)}: ${oneLine(m.text)}`);
  if (toLead.length > SHOWN) lines.push(`… ${toLead.length - SHOWN} earlier messages to the lead`);
  const running = new Set(view.tasks.flatMap((t) => t.attempts.filter((a) => a.status === 'running').map((a) => `${t.id}#${a.attempt}`)));
  for (const [key, note] of view.team.notes) if (running.has(key)) lines.push(`progress ${key.replace('#', ' a')} (${note.worker}): ${oneLine(note.text)}`);
  const held = new Map<string, string[]>();
  for (const r of view.team.reservations) if (running.has(`${r.task}#${r.attempt}`)) held.set(r.file, [...(held.get(r.file) ?? []), `${r.worker} (${r.task})`]);
  for (const [file, by] of held) lines.push(`reserved ${file} by ${by.join(', ')}`);
  for (const o of view.team.overlaps) lines.push(`overlap: ${o.file} reserved by ${o.worker} (${o.task}) while ${o.heldBy.worker} (${o.heldBy.task}) held it`);
  return lines;
}

function sender(m: TeamMessage): string {
  return m.task !== undefined ? `${m.from} (task ${m.task})` : m.from;
}

function oneLine(text: string): string {
  const flat = terminalLine(text).replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}

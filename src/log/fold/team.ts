// What the fold keeps of the team tools (issue 28): the request keys recorded, the messages and who
// read them, progress notes, reservations and their overlaps, shutdown requests.
import type { TeamEvent } from '../schema.js';

export interface TeamMessage {
  key: string;
  at: string;
  from: string;
  /** The sender's task, when a worker sent it. */
  task?: string;
  to: string;
  text: string;
  question: boolean;
}

export interface TeamReservation {
  file: string;
  worker: string;
  task: string;
  attempt: number;
  at: string;
}

export interface TeamOverlap {
  file: string;
  worker: string;
  task: string;
  /** Who held the file when it was reserved again. */
  heldBy: { worker: string; task: string };
  at: string;
}

export interface TeamFacts {
  /** Idempotency keys of every request recorded (a tool call, an inbox request). */
  keys: Set<string>;
  messages: TeamMessage[];
  /** By worker: every message for it among the first N of `messages` was handed to it. */
  reads: Map<string, number>;
  /** The latest progress note by `task#attempt`. */
  notes: Map<string, { at: string; worker: string; text: string }>;
  reservations: TeamReservation[];
  overlaps: TeamOverlap[];
  /** Shutdown requests by `task#attempt`. */
  shutdowns: Map<string, { at: string; by: string }>;
  /** Each assigned task's blockedBy, for the task list. */
  blockedBy: Map<string, string[]>;
  /** The files the plan gave each task that named some (issue 38): for the task list and the status's waits. */
  files?: Map<string, string[]>;
}

// The team facts of a run with no event yet.
export function newTeamFacts(): TeamFacts {
  return { keys: new Set(), messages: [], reads: new Map(), notes: new Map(), reservations: [], overlaps: [], shutdowns: new Map(), blockedBy: new Map() };
}

function noteTask(team: TeamFacts, id: string, task: { blockedBy?: string[]; files?: string[] }): void {
  team.blockedBy.set(id, task.blockedBy ?? []);
  if (task.files?.length) (team.files ??= new Map()).set(id, task.files);
}

// Folds one event of issue 28's block; other events change nothing here.
export function applyTeamFact(team: TeamFacts, event: TeamEvent): void {
  if ('key' in event && typeof event.key === 'string') team.keys.add(event.key);
  if ('read_through' in event && typeof event.read_through === 'number' && 'worker' in event) {
    team.reads.set(event.worker, Math.max(team.reads.get(event.worker) ?? 0, event.read_through));
  }
  switch (event.event) {
    case 'team_message':
      team.messages.push({ key: event.key, at: event.at, from: event.from, ...(event.task_id !== undefined && { task: event.task_id }), to: event.to, text: event.text, question: event.question === true });
      if (event.read_through !== undefined) team.reads.set(event.from, Math.max(team.reads.get(event.from) ?? 0, event.read_through));
      break;
    case 'team_progress':
      team.notes.set(`${event.task_id}#${event.attempt}`, { at: event.at, worker: event.worker, text: event.text });
      break;
    case 'team_reserved':
      for (const file of event.files) team.reservations.push({ file, worker: event.worker, task: event.task_id, attempt: event.attempt, at: event.at });
      for (const held of event.held) team.overlaps.push({ file: held.file, worker: event.worker, task: event.task_id, heldBy: { worker: held.worker, task: held.task_id }, at: event.at });
      break;
    case 'team_shutdown_requested':
      team.shutdowns.set(`${event.task_id}#${event.attempt}`, { at: event.at, by: event.by });
      break;
    case 'task_assigned':
      if (event.task) noteTask(team, event.task_id, event.task);
      break;
    case 'tasks_assigned':
      for (const task of event.tasks) noteTask(team, task.task_id, task.task);
      break;
    default:
      break;
  }
}

// The messages for `worker` running `task` that it has not been handed yet, and where the list ends.
export function unreadFor(team: TeamFacts, worker: string, task: string): { messages: TeamMessage[]; through: number } {
  const from = team.reads.get(worker) ?? 0;
  return { messages: team.messages.slice(from).filter((m) => (m.to === worker || m.to === task) && m.from !== worker), through: team.messages.length };
}

// The messages to a task (from teammates and the human): what its next attempt's prompt shows.
export function messagesTo(team: TeamFacts, task: string): TeamMessage[] {
  return team.messages.filter((m) => m.to === task);
}

// The messages to the lead; a question among them needs the person's attention.
export function messagesToLead(team: TeamFacts): TeamMessage[] {
  return team.messages.filter((m) => m.to === 'lead');
}

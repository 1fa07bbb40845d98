// Rebuilds a run's machine state from its log alone: inputs are fed through the pure machine,
// and every record the machine makes must match the record in the log, in order.
import { isDeepStrictEqual } from 'node:util';
import { createActor, fromTransition, type SnapshotFrom } from 'xstate';
import { pipelineMachine } from '../../machines/pipeline.js';
import type { PipelineEvent, PipelineInput } from '../../machines/types.js';
import { toMachineEvent } from '../../machines/inputs.js';
import type { EventOf, NewEvent, TeamEvent } from '../log/schema.js';
import { DeterminismError } from '../sys/errors.js';
import type { MachineState } from './machine-snapshot.js';

export type PipelineSnapshot = SnapshotFrom<typeof pipelineMachine>;

// Events the machine writes itself, as the first step of a transition.
const RECORDS = new Set([
  'stage_entered', 'stage_completed', 'stage_skipped', 'task_assigned', 'tasks_assigned', 'task_started', 'task_blocked',
  'fix_loop_started', 'iteration_started', 'run_completed', 'run_failed', 'run_cancelled', 'run_stopped',
  'routing_decided', 'workers_changed', 'workers_sized',
]);

export interface Replay {
  snapshot: PipelineSnapshot;
  /** Records the last transition made that the log does not hold yet (a crash in between). */
  pending: NewEvent[];
  /** Events in the log, and how many of them were replayed (the rest came from a machine snapshot). */
  events: number;
  replayed: number;
}

// The machine's input, as run_started recorded it.
export function inputOf(started: EventOf<'run_started'>): PipelineInput {
  const { mode, task, workers, agentType, limits, gates, agents, defaultAgent, session, parent_session, isolation, schedule, routing, models, bestOf } = started;
  const input = { mode, task, workers, agentType, limits, gates, agents, defaultAgent, session, parent_session, ...(schedule && { schedule }), ...(routing && { routing }), ...(models && { models }), ...(bestOf !== undefined && { bestOf }) };
  return isolation?.branch ? { ...input, workBranch: isolation.branch } : input;
}

// The records among a transition's actions, in the order they would be written.
export function recordsOf(actions: ReadonlyArray<{ type: string; params?: unknown }>): NewEvent[] {
  return actions.filter((a) => a.type === 'record').map((a) => a.params as NewEvent);
}

// The machine with inert effects: its records are collected, its actors never run or end.
function makeFold() {
  const made: NewEvent[] = [];
  // An actor that never ends and holds nothing (a promise actor would make an AbortController per attempt).
  const never = fromTransition((state: undefined) => state, undefined);
  const machine = pipelineMachine.provide({
    actors: { runAttempt: never, runGates: never, writeHandoff: never, scanChanges: never } as never,
    actions: { record: (_: unknown, params: NewEvent) => void made.push(params) },
  });
  return { machine, take: () => made.splice(0) };
}

// Folds the log through the machine; a record that differs from the replay is a determinism violation.
// The fold runs the machine as an actor whose effects are inert: the same transitions as the pure
// transition(), without building a new actor for every event. With `from`, a machine snapshot that has
// seen the first `from.seen` events (machine-snapshot.ts), only the events after them are replayed;
// `from` is used up (the replay changes its context in place).
export function replayRun(events: TeamEvent[], from?: { state: MachineState; seen: number }): Replay {
  const started = events.find((e): e is EventOf<'run_started'> & { file: string } => e.event === 'run_started');
  if (!started) throw new DeterminismError('the log has no run_started event: this run was not started by the pipeline');
  const fold = makeFold();
  // The fold never looks back at an earlier snapshot: its steps may change the task map in place.
  const actor = from
    ? createActor(fold.machine, { snapshot: fold.machine.resolveState({ value: from.state.value as never, context: { ...from.state.context, inPlace: true } }), input: from.state.context })
    : createActor(fold.machine, { input: { ...inputOf(started), inPlace: true } });
  actor.start();
  try {
    const pending = foldEvents(from ? events.slice(from.seen) : events, fold.take(), (event) => {
      actor.send(event);
      return fold.take();
    });
    return { snapshot: actor.getSnapshot(), pending, events: events.length, replayed: events.length - (from?.seen ?? 0) };
  } finally {
    actor.stop();
  }
}

// Compares the log's records with the machine's, feeding it the log's inputs; returns records still owed.
function foldEvents(events: TeamEvent[], initial: NewEvent[], step: (event: PipelineEvent) => NewEvent[]): NewEvent[] {
  let pending = initial;
  for (const event of events) {
    if (RECORDS.has(event.event)) {
      if (event.event === 'task_assigned' && pending[0]?.event === 'tasks_assigned') pending.unshift(...oneByOne(pending.shift() as EventOf<'tasks_assigned'>));
      const expected = pending.shift();
      if (!expected || !sameRecord(expected, strip(event))) {
        const [logged, replayed] = expected ? describeDifference(strip(event), expected) : [describe(strip(event)), 'no record here'];
        throw new DeterminismError(`${fileOf(event)} records ${logged}, but replaying the log gives ${replayed}`);
      }
      continue;
    }
    const machineEvent = toMachineEvent(event);
    if (!machineEvent) continue;
    if (pending.length > 0) {
      throw new DeterminismError(`${fileOf(event)} arrived before the records ${pending.map(describe).join(', ')} that replay expects first`);
    }
    pending = step(machineEvent);
  }
  return pending;
}

// A log written before the tasks of one step were one record holds one task_assigned per task, in
// the same order: it replays as the same step.
function oneByOne(record: Omit<EventOf<'tasks_assigned'>, 'at' | 'run_id'>): NewEvent[] {
  return record.tasks.map((t) => ({ event: 'task_assigned', task_id: t.task_id, worker: t.worker, task: t.task }));
}

function strip(event: TeamEvent): Record<string, unknown> {
  const { at: _at, run_id: _run, file: _file, ...rest } = event as TeamEvent & { file?: string };
  return rest;
}

// Whether a replayed record equals the logged one, as JSON: key order never counts, nor a key
// whose value is undefined (JSON leaves it out).
function sameRecord(expected: NewEvent, logged: Record<string, unknown>): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(expected)), logged);
}

// The two records as the message names them: of two task lists, the first task they differ in.
function describeDifference(logged: Record<string, unknown>, expected: NewEvent): [string, string] {
  if (logged.event === 'tasks_assigned' && expected.event === 'tasks_assigned' && Array.isArray(logged.tasks)) {
    const tasks = logged.tasks as unknown[];
    const name = (task: unknown) => (task === undefined ? 'tasks_assigned(no task here)' : describe({ ...(task as Record<string, unknown>), event: 'tasks_assigned' }));
    for (let i = 0; i < Math.max(tasks.length, expected.tasks.length); i++) {
      const mine = expected.tasks[i];
      if (mine === undefined || !isDeepStrictEqual(JSON.parse(JSON.stringify(mine)), tasks[i])) return [name(tasks[i]), name(mine)];
    }
  }
  const [theirs, ours] = [describe(logged), describe(expected)];
  if (theirs !== ours) return [theirs, ours];
  // Alike as named: the fields that differ say where.
  const plain = JSON.parse(JSON.stringify(expected)) as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(logged), ...Object.keys(plain)])].filter((key) => !isDeepStrictEqual(logged[key], plain[key]));
  return [`${theirs} with ${fields.join(', ')} differing`, ours];
}

function describe(record: Record<string, unknown> | NewEvent): string {
  const r = record as Record<string, unknown>;
  const detail = ['stage', 'task_id', 'attempt', 'worker', 'iteration', 'loop'].filter((k) => r[k] !== undefined).map((k) => `${k}=${String(r[k])}`);
  if (Array.isArray(r.tasks)) detail.push(`${r.tasks.length} tasks`);
  return `${String(r.event)}(${detail.join(' ')})`;
}

function fileOf(event: TeamEvent): string {
  return `events/${(event as TeamEvent & { file?: string }).file ?? '?'}`;
}

// The event that asks a restored machine to restart its effects; attempts whose task_started is
// still pending were never launched.
export function resumeEvent(replay: Replay): PipelineEvent {
  const unlaunched = replay.pending.flatMap((r) => (r.event === 'task_started' ? [{ task_id: r.task_id, attempt: r.attempt }] : []));
  return { type: 'runtime.resume', unlaunched };
}

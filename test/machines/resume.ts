// What a takeover does to a log cut at some event, without processes: the replayed machine is
// restored, asked to restart its effects (runtime.resume), and then told why it runs again; the
// rest of the original run's inputs follow. Every record the live machine makes is logged.
import { createActor, fromPromise } from 'xstate';
import { pipelineMachine } from '../../machines/pipeline.js';
import type { NewEvent, TeamEvent } from '../../src/log/schema.js';
import type { PipelineEvent } from '../../machines/types.js';
import { replayRun, resumeEvent, type PipelineSnapshot } from '../../src/session/replay.js';
import { toMachineEvent } from '../../machines/inputs.js';

export interface Resumed {
  /** The log as the resumed orchestrator leaves it. */
  log: TeamEvent[];
  /** The fold of the cut log, before the resume. */
  folded: PipelineSnapshot;
  /** The live machine right after runtime.resume, and the records that made. */
  afterResume: PipelineSnapshot;
  resumeRecords: NewEvent[];
  /** The live machine after the rest of the inputs. */
  final: PipelineSnapshot;
}

// Resumes the run whose log is `log.slice(0, cut)`, then feeds it the inputs `log` holds after the cut.
export function resumeAt(log: TeamEvent[], cut: number): Resumed {
  const prefix = log.slice(0, cut);
  const replay = replayRun(prefix);
  const out: TeamEvent[] = [...prefix];
  const write = (body: NewEvent) => out.push({ ...body, at: `r${out.length}`, run_id: 'run-1', file: `r${String(out.length).padStart(4, '0')}-${body.event}.json` } as unknown as TeamEvent);
  replay.pending.forEach(write);
  const made: NewEvent[] = [];
  const never = () => new Promise<void>(() => {});
  const machine = pipelineMachine.provide({
    actors: { runAttempt: fromPromise(never), runGates: fromPromise(never), writeHandoff: fromPromise(never), scanChanges: fromPromise(never) },
    actions: { record: (_: unknown, params: NewEvent) => void made.push(params) },
  });
  const { value, context } = replay.snapshot;
  const actor = createActor(machine, { snapshot: machine.resolveState({ value, context }), input: context });
  actor.start();
  actor.send(resumeEvent(replay));
  const afterResume = actor.getSnapshot();
  const resumeRecords = made.splice(0);
  resumeRecords.forEach(write);
  const input = (event: PipelineEvent, body: NewEvent) => {
    write(body);
    actor.send(event);
    made.splice(0).forEach(write);
  };
  if (afterResume.status !== 'done') {
    const cancelling = afterResume.matches('cancelling') || afterResume.matches('cancelHandoff');
    if (cancelling) input({ type: 'cancel.requested', force: false }, { event: 'cancel_requested', by: 'test', force: false });
    else input({ type: 'run.resumed', retry_interrupted: false }, { event: 'run_resumed', pid: 1, retry_interrupted: false });
  }
  for (const event of log.slice(cut)) {
    const machineEvent = toMachineEvent(event);
    if (!machineEvent || actor.getSnapshot().status === 'done') continue;
    const { at: _at, run_id: _run, file: _file, ...body } = event as TeamEvent & { file?: string };
    input(machineEvent, body as NewEvent);
  }
  const final = actor.getSnapshot();
  actor.stop();
  return { log: out, folded: replay.snapshot, afterResume, resumeRecords, final };
}

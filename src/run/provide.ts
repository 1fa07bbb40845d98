// The one place that binds the machine's named effects to real ones (machine.provide).
import { relative } from 'node:path';
import { fromPromise } from 'xstate';
import { writeHandoff } from '../../handoffs/write.js';
import { pipelineMachine } from '../../machines/pipeline.js';
import type { AttemptInput, HandoffInput } from '../../machines/types.js';
import type { NewEvent } from '../log/schema.js';
import { taskFinished } from '../attempt/records.js';
import { stopLiveAttempt } from '../attempt/stop-live.js';
import { LogWriteError, UsageError } from '../sys/errors.js';
import { runGates } from '../gates/gates.js';
import { scanChanges } from '../gates/changes.js';
import { announceRecord } from './announce.js';
import { triggersCheckpoint, updateCheckpointAfter } from '../checkpoint/hook.js';
import type { RunSession } from '../session/session.js';

// The pipeline machine with real workers, gates, handoffs and log writes.
export function bindMachine(session: RunSession) {
  return pipelineMachine.provide({
    actors: {
      runAttempt: fromPromise<void, AttemptInput>(async ({ input, signal }) => {
        // Where the attempt runs (this machine, or a team worker whose job commits with the task_started)
        // is told first: the step's records flush after this start.
        session.place.offer(input);
        // xstate starts the children of a machine's first state before it runs that state's
        // actions; one microtask later the task_started record is appended. (Stopping the worker is
        // an effect too: watchWorker awaits the log before it stops one.)
        await Promise.resolve();
        try {
          await session.events.flush();
          await session.place.run(input, signal);
        } catch (error) {
          // Our bug, not the agent's: the attempt fails with the error as evidence; the team goes on.
          // A log that cannot be written has already stopped the run: nothing more is recorded.
          if (error instanceof LogWriteError) return;
          // A config problem (an agent the config does not define) is bad input, not the task's
          // failure: nothing is recorded, the run stops resumable and the command says what to fix.
          if (error instanceof UsageError) return session.cancel.fail(new UsageError(`${input.taskId} a${input.attempt}: ${error.message}, or resume with --config naming a file that defines it; the run stopped and can be resumed`));
          session.log.error({ err: error, task: input.taskId, attempt: input.attempt }, 'attempt effect failed');
          if (!session.events.isFinished(input.taskId, input.attempt)) {
            // A worker that was started or adopted stops before its attempt is recorded ended.
            await stopLiveAttempt(session, input.taskId, input.attempt).catch((stopError: unknown) => session.log.warn({ err: stopError, task: input.taskId, attempt: input.attempt }, 'the worker of a failed attempt effect was not stopped'));
            session.events.commit(taskFinished(session, input, 'failed', `internal error: ${(error as Error).message}`, [], ''));
          }
        }
      }),
      runGates: fromPromise<void, { commands: string[]; iteration: number; pass: number }>(async ({ input, signal }) => {
        await guard(session, async () => {
          await session.events.flush();
          return runGates(session, input.commands, input.iteration, input.pass, signal);
        });
      }),
      scanChanges: fromPromise<void, { iteration: number; pass: number }>(async ({ input }) => {
        await guard(session, async () => {
          await session.events.flush();
          await scanChanges(session, input.iteration, input.pass);
        });
      }),
      writeHandoff: fromPromise<void, HandoffInput>(async ({ input }) => {
        await guard(session, async () => {
          await session.events.flush();
          const { file, text, sha256 } = writeHandoff(session.paths.handoffsDir, input, session.events.write);
          const path = relative(session.projectDir, file);
          session.progress.emit({ type: 'handoff', stage: input.stage, path }, `  handoff ${path}`);
          session.events.commit({ event: 'handoff_written', stage: input.stage, path, sha256, text });
        });
      }),
    },
    actions: {
      record: (_: unknown, params: NewEvent) => {
        session.events.append(params);
        announceRecord(session, params);
        // The checkpoint is made from the log, so it is written once the record is in it.
        if (triggersCheckpoint(params.event)) {
          const source = () => session.events.fold.view(session.projectDir);
          session.events.afterFlush(() => updateCheckpointAfter(params.event, { paths: session.paths, write: session.events.write, log: session.log, progress: session.progress, source }));
        }
      },
    },
  });
}

// A failing gate runner or handoff writer is our bug: the run stops, resumable, with the error.
async function guard(session: RunSession, effect: () => Promise<void>): Promise<void> {
  try {
    await effect();
  } catch (error) {
    session.log.error({ err: error }, 'effect failed');
    session.cancel.fail(error as Error);
  }
}

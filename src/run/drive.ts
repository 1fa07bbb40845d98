// Drives a run to its end: the live machine, its effects, signals and the cleanup after.
import { fenceAtResume } from '../isolation/fence.js';
import { createActor, type SnapshotFrom } from 'xstate';
import type { pipelineMachine } from '../../machines/pipeline.js';
import type { PipelineInput } from '../../machines/types.js';
import { elsewhere, listGroupMembers } from '../sys/proc.js';
import { LogWriteError, UsageError } from '../sys/errors.js';
import { listenForCancel } from '../cancel/listen.js';
import { stopFinishedLeftovers } from '../attempt/attempt.js';
import { bindMachine } from './provide.js';
import { makeMachineSnapshot, saveMachineSnapshot, snapshotDue } from '../session/machine-snapshot.js';
import { resumeEvent, type Replay } from '../session/replay.js';
import type { RunSession } from '../session/session.js';
import { settleBranches } from '../isolation/end.js';
import { sweepStaleLocks } from '../isolation/stale-locks.js';
import { watchCheckout } from '../isolation/watch.js';
import { stopLeftoverGates } from '../gates/groups.js';
import { takeInbox } from '../team-tools/take.js';
import { INBOX_KINDS } from '../team-tools/kinds.js';
import { watchBackoffs } from './backoff.js';
import { isBudgetStopped } from '../../machines/budget-steps.js';
import { budgetRaised, checkBudgetSoon } from '../session/budget.js';
import type { EventOf } from '../log/schema.js';

export type DriveOutcome = { kind: 'completed' | 'failed' | 'cancelled' | 'stopped'; reason: string };


type Snapshot = SnapshotFrom<typeof pipelineMachine>;

// Runs the machine from its start or from a replayed log until it ends or stops for a human.
export async function driveRun(
  session: RunSession,
  start: { input: PipelineInput } | { replay: Replay; retryInterrupted: boolean; cancel?: { by: string; force: boolean }; raise?: Omit<EventOf<'budget_raised'>, 'event' | 'at' | 'run_id'> },
): Promise<DriveOutcome> {
  if ('replay' in start) {
    // A takeover runs the gates again: what the dead orchestrator's gates left running goes first;
    // what its finished attempts left running is stopped while the run goes on.
    await stopLeftoverGates(session.registry, session.runId);
    // Git locks the dead orchestrator's git left in teamline's worktrees go before any git work.
    await sweepStaleLocks(session);
    // A run begun before the watch on the user's checkout existed is watched from here on.
    await session.isolation.serial(() => watchCheckout(session));
    void session.cancel.track(stopFinishedLeftovers(session).catch((error: unknown) => session.log.warn({ err: error }, 'the leftovers of finished attempts were not looked for')));
  }
  const machine = bindMachine(session);
  let actor;
  // The live actor never looks back at an earlier snapshot: its steps may change the task map in place.
  if ('input' in start) actor = createActor(machine, { input: { ...start.input, inPlace: true } });
  else {
    session.log.info({ events: start.replay.events, replayed: start.replay.replayed, fromSnapshot: start.replay.replayed < start.replay.events }, 'the log replayed');
    // Finish the transition a crash cut short: its records come before anything else.
    for (const record of start.replay.pending) session.events.append(record);
    const { value, context } = start.replay.snapshot;
    actor = createActor(machine, { snapshot: machine.resolveState({ value, context }), input: context });
  }
  session.events.attach(actor);
  let stopBackoffs = () => {};
  const outcome = new Promise<DriveOutcome>((resolve, reject) => {
    // A restored snapshot is reported during start(): judge it only once the resume events are in.
    let ready = false;
    const check = (snapshot: Snapshot) => {
      if (!ready) return;
      const ended = outcomeOf(snapshot);
      if (ended) resolve(ended);
    };
    const snapshots = periodicSnapshots(session);
    actor.subscribe({ next: (snapshot) => (snapshots(snapshot), check(snapshot)), error: (error) => resolve({ kind: 'failed', reason: `internal error: ${(error as Error).message}` }) });
    session.cancel.whenFatal((error) => {
      // Bad input met by an effect: the command ends with it (exit 2), the run resumable.
      if (error instanceof UsageError) return reject(error);
      if (!(error instanceof LogWriteError)) return resolve({ kind: 'failed', reason: `internal error (the run can be resumed): ${error.message}` });
      // Nothing can be recorded any more: the workers are stopped at once, and the command fails with the reason.
      session.cancel.forceStops();
      reject(error);
    });
    actor.start();
    if ('replay' in start) {
      actor.send(resumeEvent(start.replay));
      if (start.cancel) {
        session.events.commit({ event: 'cancel_requested', by: start.cancel.by, force: start.cancel.force });
        void session.cancel.track(session.events.settled().then(() => session.place.passCancelOn(start.cancel!.by, start.cancel!.force)));
      } else {
        session.events.commit({ event: 'run_resumed', pid: process.pid, retry_interrupted: start.retryInterrupted });
        if (session.place.runsHere) fenceAtResume(session.config.team.fence, session.isolation.told.fence, (why) => session.events.commit({ event: 'fence_lost', why }), (line) => session.progress.emit({ type: 'run.unfenced' }, line));
        // A run a spent quota stopped: resuming says it is back; the attempts it stopped go again.
        if (session.events.fold.state.spend?.quota) {
          const { agent, resets } = session.events.fold.state.spend.quota;
          session.progress.emit({ type: 'quota.cleared', agent }, `▶ ${agent}'s quota${resets ? ` (it said: resets ${resets})` : ''} taken as back: the attempts it stopped go again`);
          session.events.commit({ event: 'quota_cleared' });
        }
        // team resume --budget-usd / --budget-tokens: the new budget, then the run goes on (issue 29).
        if (start.raise) {
          budgetRaised(session.events);
          session.events.commit({ event: 'budget_raised', ...start.raise });
        }
      }
    }
    stopBackoffs = watchBackoffs(session, actor);
    checkBudgetSoon(session);
    void session.events.settled();
    ready = true;
    check(actor.getSnapshot());
  });
  const stopSignals = listenForCancel(session);
  const stopInbox = takeInbox(session, session.place.inbox, INBOX_KINDS);
  let ended = false;
  try {
    const result = await outcome;
    ended = result.kind !== 'stopped' && session.cancel.fatal === undefined;
    // Effects still finishing (a stop of a stalled worker) settle before the run ends.
    await session.cancel.idle();
    await settleBranches(session, result.kind);
    return result;
  } finally {
    stopSignals();
    await stopInbox();
    stopBackoffs();
    actor.stop();
    // Stops begun by stopping the machine (a log that broke) end before the orchestrator does.
    await session.cancel.idle();
    await cleanUp(session, ended);
    await session.events.settled();
    saveSnapshot(session, actor.getSnapshot());
  }
}

// The machine's state after a step (whose records are all in the log by then) is saved whenever one
// is due (snapshotDue), so that a resume after a crash replays only the events after it.
function periodicSnapshots(session: RunSession): (snapshot: Snapshot) => void {
  let savedAt = session.events.count;
  // Snapshots are files beside a run's files; a run in PostgreSQL replays its log whole.
  if (!session.place.snapshots) return () => undefined;
  return (snapshot) => {
    const count = session.events.count;
    if (!snapshotDue(count, savedAt)) return;
    savedAt = count;
    // Taken now (the live context changes in place), saved once the events it names are in the log.
    const text = takeMachine(session, snapshot);
    if (text !== undefined) session.events.afterFlush(() => saveMachine(session, text));
  };
}

function takeMachine(session: RunSession, snapshot: Snapshot): string | undefined {
  try {
    return makeMachineSnapshot({ value: snapshot.value, context: snapshot.context }, session.events.position());
  } catch (error) {
    session.log.warn({ err: error }, 'the machine snapshot was not taken');
    return undefined;
  }
}

function saveMachine(session: RunSession, text: string): void {
  // A log that broke lacks records the machine made: a snapshot of it would skip them on resume.
  if (!session.events.intact) return;
  try {
    saveMachineSnapshot(session.paths, text);
  } catch (error) {
    session.log.warn({ err: error }, 'the machine snapshot was not saved');
  }
}

function outcomeOf(snapshot: Snapshot): DriveOutcome | undefined {
  const reason = snapshot.context.reason;
  if (snapshot.matches('stopped') || isBudgetStopped(snapshot.context)) return { kind: 'stopped', reason };
  if (snapshot.status !== 'done') return undefined;
  if (snapshot.matches('done')) return { kind: 'completed', reason: '' };
  if (snapshot.matches('cancelled')) return { kind: 'cancelled', reason };
  return { kind: 'failed', reason };
}

// After the run: the tmux server goes (unless the user keeps the panes), and nothing owned is left.
// A run that has not ended (a stop for a decision, our error) leaves its workers to the next takeover.
async function cleanUp(session: RunSession, ended: boolean): Promise<void> {
  await session.registry.close();
  session.place.close();
  if (!session.keepPanes) {
    await session.registry.killTmuxServers(session.runId, (error) => session.log.warn({ err: error }, 'tmux cleanup failed'));
  }
  // A worker still running once the run ended (its attempt's end recorded without it) is stopped.
  for (const handle of session.registry.all()) {
    if (handle.backend === 'tmux' && session.keepPanes) continue;
    if (elsewhere(handle) || listGroupMembers(handle.pgid).length === 0) continue;
    if (!ended) {
      session.log.warn({ pgid: handle.pgid }, 'process group still has members after the run');
      continue;
    }
    session.log.warn({ pgid: handle.pgid }, 'process group still has members after the run: stopping it');
    await session.registry.backendOf(handle).stop(handle, { graceMs: session.limits.shutdownTimeoutMs }).catch((error: unknown) => session.log.warn({ err: error, pgid: handle.pgid }, 'a leftover worker was not stopped'));
  }
}

// The run's fold and machine as it ended or stopped, saved for status and resume: a failure costs
// only speed, never the run.
function saveSnapshot(session: RunSession, snapshot: Snapshot): void {
  if (!session.place.snapshots) return;
  try {
    session.events.fold.save(session.paths);
  } catch (error) {
    session.log.warn({ err: error }, 'the view snapshot was not saved');
  }
  const text = takeMachine(session, snapshot);
  if (text !== undefined) saveMachine(session, text);
}

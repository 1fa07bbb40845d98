// How a driven run hears a cancel: signals, `team cancel`'s request file, and with the PostgreSQL
// store a request from another machine.
import { LogWriteError } from '../sys/errors.js';
import { takeCancelRequest, unsignalledRequestWaits } from './request.js';
import type { RunSession } from '../session/session.js';

// How often the run folder is looked at for a request no signal announces.
const REQUEST_POLL_MS = 500;

// SIGINT, SIGTERM, SIGHUP and `team cancel` all take the one cancel path; a second SIGINT forces it.
// With the PostgreSQL store a cancel request from another machine takes it too, and the cancel is
// passed on to the team workers.
export function listenForCancel(session: RunSession): () => void {
  let requests = 0;
  const request = (by: string, force: boolean, fromStore = false) => {
    requests += 1;
    const forced = force || requests > 1;
    if (forced) session.cancel.forceStops();
    session.progress.emit({ type: 'cancel.requested', by, force: forced }, `!! cancel requested by ${by}${forced ? ' (forced: no grace period)' : ''}`);
    try {
      session.events.commit({ event: 'cancel_requested', by, force: forced });
      if (!fromStore) void session.cancel.track(session.events.settled().then(() => session.place.passCancelOn(by, forced)));
    } catch (error) {
      // A log that cannot be written has stopped the run already; anything else is our bug.
      if (!(error instanceof LogWriteError)) session.cancel.fail(error as Error);
    }
  };
  const stopStoreListener = session.place.listenCancel((by, force) => request(by, force, true)).catch((error: unknown) => {
    session.log.warn({ err: error }, 'cannot listen for cancel requests from other machines');
    return async () => undefined;
  });
  const fromFile = (signal: string) => {
    const asked = takeCancelRequest(session.paths.runDir);
    if (typeof asked === 'string') request(signal, false);
    else request(asked.by, asked.force);
  };
  // A request from another pid namespace comes with no signal: it is looked for.
  const poll = setInterval(() => {
    if (unsignalledRequestWaits(session.paths.runDir)) fromFile('team cancel');
  }, REQUEST_POLL_MS);
  poll.unref();
  const onInt = () => request('SIGINT', false);
  const onTerm = () => fromFile('SIGTERM');
  const onHup = () => request('SIGHUP', false);
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  process.on('SIGHUP', onHup);
  // What came while the run was taken over is heard now, in order (a cancel that raced a resume).
  const heard = { SIGINT: onInt, SIGTERM: onTerm, SIGHUP: onHup };
  for (const signal of session.heldSignals?.release() ?? []) heard[signal]();
  return () => {
    clearInterval(poll);
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    process.off('SIGHUP', onHup);
    void stopStoreListener.then((stop) => stop());
  };
}

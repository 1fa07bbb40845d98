// Records a request's event once: a key the log holds (or one being recorded now) is not recorded
// again, so a retried call, a replayed request or one taken again after a crash is one event.
import type { NewEvent } from '../log/schema.js';
import type { RunSession } from '../session/session.js';

// Keys being recorded by this orchestrator, not yet durable (the fold knows only durable ones).
const RECORDING = new WeakMap<RunSession, Map<string, Promise<void>>>();

// Appends `event` unless its key is recorded; resolves once it is durable (true) or was already there (false).
export async function recordOnce(session: RunSession, key: string, event: NewEvent): Promise<boolean> {
  let recording = RECORDING.get(session);
  if (!recording) RECORDING.set(session, (recording = new Map()));
  const under = recording.get(key);
  if (under) return under.then(() => false);
  if (session.events.fold.state.team.keys.has(key)) return false;
  session.events.commit(event);
  const durable = session.events.flush().finally(() => recording.delete(key));
  recording.set(key, durable);
  await durable;
  return true;
}

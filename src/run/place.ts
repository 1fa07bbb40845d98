// The two places a session's attempts run (AttemptPlace, src/session/session.ts), one chosen when the
// session is made (face.ts): this machine, whose own processes run them in its worktrees, fenced;
// or team workers, which take them from the PostgreSQL store's queue and report back (src/remote/).
import { runAttempt } from '../attempt/attempt.js';
import { makeAttemptJob } from '../remote/job.js';
import { runRemoteAttempt } from '../remote/attempt.js';
import { closeNews, listenForStoreCancel, passCancelOn, startNews } from '../remote/writer.js';
import { FileStore } from '../store/files/store.js';
import type { StoreLink } from '../store/queue.js';
import type { AttemptPlace, RunSession } from '../session/session.js';

// This machine runs the attempts: a cancel is heard here, and nothing is passed on.
export function herePlace(session: RunSession): AttemptPlace {
  return {
    offer: () => undefined,
    run: (input, signal) => runAttempt(session, input, signal),
    ownWorker: (taskId, attempt) => session.registry.get(taskId, attempt),
    passCancelOn: async () => undefined,
    listenCancel: async () => async () => undefined,
    inbox: new FileStore(session.projectDir, session.events.write),
    runsHere: true,
    snapshots: true,
    close: () => undefined,
  };
}

// Team workers run the attempts: each new one is a job that commits with its task_started, the
// workers' news ends them, and a cancel goes both ways through the store's requests.
export function queuedPlace(link: StoreLink): (session: RunSession) => AttemptPlace {
  return (session) => {
    startNews(session, link);
    return {
      offer: (input) => {
        if (!input.resumed) link.sink.expectJob(input.taskId, input.attempt, () => makeAttemptJob(session, input));
      },
      run: (input, signal) => runRemoteAttempt(session, link, input, signal),
      ownWorker: () => undefined,
      passCancelOn: (by, force) => passCancelOn(link, session, by, force),
      listenCancel: (onCancel) => listenForStoreCancel(link, session, onCancel),
      inbox: link.store,
      runsHere: false,
      snapshots: false,
      close: () => closeNews(link),
    };
  };
}

// A run's writer on the PostgreSQL store: its connections (store, pg-boss, the writer lock, the
// request listener) and the workers' news. Requests from other machines reach it by NOTIFY; a
// cancel it records is passed on to the workers the same way.
import { closeQueue, lastRequestId, listenRequests, readRequests, writeRequest } from '../store/attempt-queue.js';
import type { StoreLink } from '../store/queue.js';
import type { Logger } from '../sys/logger.js';
import { WorkerNews, type NewsParts } from './worker-news.js';

// The workers' news of each writer's hold on the store: made with the session (it reads the log's
// fold as the session began), closed with the run.
const NEWS = new WeakMap<StoreLink, WorkerNews>();

// Starts the workers' news of a session on the store.
export function startNews(session: NewsParts, link: StoreLink): void {
  NEWS.set(link, new WorkerNews(session, link.store));
}

// The workers' news of a session on the store (startNews made it).
export function newsOf(link: StoreLink): WorkerNews {
  const news = NEWS.get(link);
  // Our bug: a session on the store is made with its news (run/hold.ts).
  if (!news) throw new Error('the workers\' news of this run was not started with its session');
  return news;
}

// What of the run's session a cancel request needs: the run, its log, and the grace an attempt with
// the team tools gets to end itself (team.shutdownTimeoutMs).
interface WriterParts {
  runId: string;
  log: Logger;
  config?: { team: { shutdownTimeoutMs: number } };
}

// The body of a cancel request this writer wrote: it hears its own NOTIFY too, and leaves it.
const OWN = `writer pid ${process.pid}`;

// Tells the run's workers to stop its attempts (a requests row and its NOTIFY); a failure is logged:
// their leases still end the attempts once the log has ended them.
export async function passCancelOn(link: StoreLink, session: WriterParts, by: string, force: boolean): Promise<void> {
  await writeRequest(link.store, session.runId, 'cancel', { by, force, from: OWN, ...(session.config && { grace_ms: session.config.team.shutdownTimeoutMs }) }).catch((error: unknown) => session.log.warn({ err: error }, 'the cancel request for the workers was not written'));
}

// Asks the worker that runs the attempt to stop it (a requests row and its NOTIFY): the run stops it
// with no cancel (its budget spent, the run failing). A failure is logged: the attempt then ends on its own.
export async function passStopOn(link: StoreLink, session: WriterParts, attempt: { taskId: string; attempt: number }, reason: string): Promise<void> {
  await writeRequest(link.store, session.runId, 'stop', { task_id: attempt.taskId, attempt: attempt.attempt, reason, from: OWN }).catch((error: unknown) => session.log.warn({ err: error }, 'the stop request for a worker was not written'));
}

// Listens for cancel requests of this run written from other machines; `onCancel` gets each one.
export async function listenForStoreCancel(link: StoreLink, session: WriterParts, onCancel: (by: string, force: boolean) => void): Promise<() => Promise<void>> {
  const remote = link;
  let since = await lastRequestId(remote.store, session.runId);
  let reading = Promise.resolve();
  const read = () => {
    reading = reading.then(async () => {
      for (const request of await readRequests(remote.store, session.runId, since)) {
        since = request.id;
        if (request.kind !== 'cancel' || request.body.from === OWN) continue;
        onCancel(typeof request.body.by === 'string' ? `${request.body.by} (by request)` : 'a cancel request', request.body.force === true);
      }
    }).catch((error: unknown) => session.log.warn({ err: error }, 'the run\'s requests cannot be read now'));
  };
  const listener = await listenRequests(
    remote.url,
    `teamline writer of ${session.runId} listening`,
    (runId) => {
      if (runId === session.runId) read();
    },
    read,
  );
  // A request committed before the listener began is read once now; and every few seconds, in case
  // a notification was lost before the listener's connection was found dropped and made again.
  read();
  const timer = setInterval(read, REQUEST_POLL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await listener.close();
  };
}

// How often the requests are read besides their notifications.
const REQUEST_POLL_MS = 2_000;

// Ends what the writer holds, the lock last (a successor may take the run once it is free).
export async function closeRemote(link: StoreLink): Promise<void> {
  closeNews(link);
  await closeQueue(link.boss).catch(() => undefined);
  await link.lock.release();
  await link.store.close().catch(() => undefined);
}

// Stops the workers' news of a hold on the store (a second close does nothing).
export function closeNews(link: StoreLink | undefined): void {
  if (link) NEWS.get(link)?.close();
}

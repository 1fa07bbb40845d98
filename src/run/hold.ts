// A writer's hold on a run: the run folder's lock for the files; on the PostgreSQL store the run's
// writer lock, pg-boss, and the writer's own files in .team/store-runs/<run>.
import { mkdirSync } from 'node:fs';
import type { TeamConfig } from '../../config/schema.js';
import { keepTeamOutOfGit } from '../git/team-exclude.js';
import type { RunPaths } from '../log/write.js';
import { LogWriteError } from '../sys/errors.js';
import { makeRunLogger } from '../sys/logger.js';
import { PgEventGroup } from '../store/pg/event-group.js';
import { openQueue } from '../store/pg/queue.js';
import type { PgStore } from '../store/pg/store.js';
import { writerName } from '../store/pg/writer-lock.js';
import { KeptWriterLock, lastEventName } from '../store/pg/kept-lock.js';
import type { RunStore } from '../store/types.js';
import { closeRemote, startNews } from '../remote/writer.js';
import type { StoreLink } from '../session/store-link.js';
import { makeSession, type RunSession, type SessionOptions } from '../session/session.js';

// This machine's folder of the run, the session that drives it, and the release of the run's lock
// (and of what else the writer holds).
export interface RunHold {
  paths: RunPaths;
  session(options: Omit<SessionOptions, 'paths' | 'log' | 'store'>): RunSession;
  release(): Promise<void>;
}

// Takes the run's writer lock in its store (`command`: the holder the files' lock names; the store
// may stay away team.storeOutageMs), or refuses naming the holder (LockedError).
export async function holdRun(store: RunStore, runId: string, command: string, config: TeamConfig): Promise<RunHold> {
  if (store.kind === 'postgres') return holdStoreRun(store as PgStore, runId, config.team.storeOutageMs);
  const paths = store.paths(runId);
  const lock = await store.lockWriter(runId, command);
  return { paths, session: (options) => makeSession({ ...options, paths, log: makeRunLogger(paths.logFile) }), release: () => lock.release() };
}

// The writer's hold on a run of the store: the run's writer lock, pg-boss, and its own files (made
// with the session); a writer lock that cannot be had back (the store away past its bound, or another
// writer) stops the run. The release ends them and closes the store.
async function holdStoreRun(store: PgStore, runId: string, outageMs: number): Promise<RunHold> {
  const link = await openLink(store, runId, outageMs);
  const paths = store.paths(runId);
  let session: RunSession | undefined;
  return {
    paths,
    session: (options) => {
      keepTeamOutOfGit(paths.projectDir);
      mkdirSync(paths.handoffsDir, { recursive: true });
      const made = makeSession({ ...options, paths, log: makeRunLogger(paths.logFile), store: link });
      startNews(made);
      void link.lock.gone.then((error) => made.cancel.fail(new LogWriteError(runId, error)));
      return (session = made);
    },
    release: () => closeRemote(session?.remote ?? link),
  };
}

// pg-boss and the run's writer lock (kept through an outage), on the store; the store is closed when
// they cannot be had.
async function openLink(store: PgStore, runId: string, outageMs: number): Promise<StoreLink> {
  const name = writerName(runId);
  try {
    const lock = new KeptWriterLock(store.url, runId, await store.lockWriter(runId, name), () => lastEventName(store.db, runId), outageMs);
    try {
      lock.noteCommitted(await lastEventName(store.db, runId));
      const boss = await openQueue(store.url, name);
      return { url: store.url, store, boss, lock, sink: new PgEventGroup(store, boss, runId, lock) };
    } catch (error) {
      await lock.release();
      throw error;
    }
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}

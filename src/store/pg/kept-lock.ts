// The writer's lock kept through an outage of the store. The server frees a session lock when its
// connection ends, so a restart of PostgreSQL (or a network gone for a while) takes it away: it is
// taken again with a back-off, and the writer goes on only when the log still ends where this writer
// left it (no other writer wrote meanwhile). Past the bound the writer gives up, naming since when.
import type pg from 'pg';
import { LockedError } from '../../sys/errors.js';
import { takeWriterLock, type WriterLock } from './writer-lock.js';

// The first wait between two tries to take the lock again, doubled up to the last.
const RETRY_FIRST_MS = 250;
const RETRY_LAST_MS = 4_000;

export class KeptWriterLock {
  private lock: WriterLock;
  private retaking?: Promise<void>;
  private released = false;
  private failure?: Error;
  private onGone!: (error: Error) => void;
  /** Settles when the lock cannot be had back: the run must stop. */
  readonly gone: Promise<Error> = new Promise((resolve) => (this.onGone = resolve));
  /** The name of the last event this writer knows to be in the log, and of the one it is committing. */
  private last: { known?: string; pending?: string } = {};

  constructor(
    private readonly url: string,
    private readonly runId: string,
    lock: WriterLock,
    private readonly lastLogged: () => Promise<string | undefined>,
    /** How long the store may stay away (team.storeOutageMs). */
    readonly outageMs: number,
  ) {
    this.lock = lock;
    this.watch(lock);
  }

  get backendPid(): number {
    return this.lock.backendPid;
  }

  // The log ends at `name` (this writer's own last record, read at its start or just committed).
  noteCommitted(name: string | undefined): void {
    this.last = { known: name };
  }

  // A commit of records up to `name` is under way: if its outcome is lost, the log may end there too.
  notePending(name: string): void {
    this.last.pending = name;
  }

  // Resolves once the lock is held again (at once when it never went); throws when it cannot be.
  async held(): Promise<void> {
    while (this.retaking) await this.retaking;
    if (this.failure) throw this.failure;
  }

  async release(): Promise<void> {
    this.released = true;
    await this.lock.release();
  }

  private watch(lock: WriterLock): void {
    void lock.lost.then((cause) => {
      if (!this.released && this.lock === lock) this.retaking = this.retake(cause);
    });
  }

  private async retake(cause: Error): Promise<void> {
    const since = new Date();
    for (let wait = RETRY_FIRST_MS; !this.released; wait = Math.min(wait * 2, RETRY_LAST_MS)) {
      try {
        const lock = await takeWriterLock(this.url, this.runId);
        const ends = await this.lastLogged();
        if (ends !== this.last.known && ends !== this.last.pending) {
          await lock.release();
          return this.fail(new LockedError(`run ${this.runId}: its log no longer ends where this writer left it (at ${ends ?? 'nothing'}, this writer's last record is ${this.last.known ?? 'none'}): another writer wrote it while the store was away, or the store lost what it had acknowledged`));
        }
        this.lock = lock;
        this.retaking = undefined;
        this.watch(lock);
        return;
      } catch (error) {
        if (error instanceof LockedError) return this.fail(error);
        if (Date.now() - since.getTime() >= this.outageMs) return this.fail(new Error(`store unreachable since ${since.toISOString()} (${cause.message})`));
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  private fail(error: Error): void {
    this.failure = error;
    this.retaking = undefined;
    this.onGone(error);
  }
}

// The name of the run's last event in the store, or undefined when it has none.
export async function lastEventName(db: pg.Pool | pg.ClientBase, runId: string): Promise<string | undefined> {
  const row = await db.query<{ name: string }>('SELECT name FROM teamline.events WHERE run_id = $1 ORDER BY seq DESC LIMIT 1', [runId]);
  return row.rows[0]?.name;
}

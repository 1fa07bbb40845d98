// Group commit for one run's log. Each event is written at once to a temporary file of the events
// folder and synced, on libuv's thread pool (the event loop goes on: opening and syncing files in one
// folder wait on the file system's journal). flush() puts everything written so far into the log:
// once the files are synced it renames them into place in the order they were written and fsyncs
// their folder once. The flushes asked for while one such commit is under way share the next one,
// which takes every file written by the time it starts. A file is in the log only once renamed, and
// a commit renames only after the one before it has finished, so a kill at any point leaves the log
// a prefix of what was written (at worst a stray temporary file, which readers report and ignore),
// never a hole. The runtime awaits flush() before any effect of a step starts.
import type { NewEvent } from '../../machines/events.js';
import { placeStaged, stageFile, syncDirInPool, type StagedFile } from '../../workers/atomic.js';
import type { LogDigest } from './log-digest.js';
import { makeEventFile, type RunPaths, type WriteOptions } from './store.js';

/** A file being written and synced: settles with it, or with the error that stopped it (never rejects). */
type Written = Promise<StagedFile | Error>;

export class EventGroup {
  private staged: Written[] = [];
  /** The commit under way, and the one queued behind it (it takes what is written until it starts). */
  private running?: Promise<void>;
  private queued?: Promise<void>;
  /** The last commit begun or queued: a flush with nothing new written waits for it. */
  private last: Promise<void> = Promise.resolve();
  /** Set by the first commit that failed: nothing is renamed into the log after it. */
  private failure?: Error;

  constructor(
    private readonly paths: RunPaths,
    private readonly runId: string,
    private readonly options: WriteOptions & { digest?: LogDigest },
  ) {}

  // Writes an event (not yet in the log: the next flush puts it there); returns it and its file name.
  add<E extends NewEvent>(event: E): { full: E & { at: string; run_id: string }; name: string } {
    const { full, name, text } = makeEventFile(this.runId, event);
    this.staged.push(stageFile(this.paths.eventsDir, name, text, this.options).catch((error: Error) => error));
    this.options.digest?.add(name, text);
    return { full, name };
  }

  // Resolves once every event added so far is in the log and durable; rejects, leaving these events
  // and every later one out of the log, when a write fails.
  flush(): Promise<void> {
    if (this.staged.length === 0 || this.queued) return this.last;
    if (!this.running) return this.begin();
    const queued = this.running.then(
      () => this.begin(),
      () => this.begin(),
    );
    this.queued = queued;
    this.last = quiet(queued);
    return queued;
  }

  /** Whether events were added that no flush has taken yet. */
  get pending(): boolean {
    return this.staged.length > 0;
  }

  // Commits what is written now; the next flush waits for this one.
  private begin(): Promise<void> {
    this.queued = undefined;
    const batch = this.staged.splice(0);
    const running = this.commit(batch).finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    this.last = quiet(running);
    return running;
  }

  private async commit(batch: Written[]): Promise<void> {
    const files = await Promise.all(batch);
    this.failure ??= files.find((file): file is Error => file instanceof Error);
    if (this.failure) throw this.failure;
    try {
      // On the event loop: a rename within one folder is quick, and each one sent to the thread
      // pool would wait behind the fsyncs there, one after the other.
      for (const file of files as StagedFile[]) placeStaged(file);
      if (this.options.fsync) await syncDirInPool(this.paths.eventsDir);
    } catch (error) {
      this.failure ??= error as Error;
      throw error;
    }
  }
}

// The same settling, with a failure counted as handled (whoever awaits the commit itself hears it).
function quiet(promise: Promise<void>): Promise<void> {
  promise.catch(() => undefined);
  return promise;
}

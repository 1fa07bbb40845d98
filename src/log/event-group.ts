// Group commit for one run's log. Each event is written at once to a temporary file of the events
// folder and synced, on libuv's thread pool (the event loop goes on: opening and syncing files in one
// folder wait on the file system's journal). flush() puts everything written so far into the log:
// once the files are synced it renames them into place in the order they were written and fsyncs
// their folder once. The flushes asked for while one such commit is under way share the next one,
// which takes every file written by the time it starts. A file is in the log only once renamed, and
// a commit renames only after the one before it has finished, so a kill at any point leaves the log
// a prefix of what was written (at worst a stray temporary file, which readers report and ignore),
// never a hole. The runtime awaits flush() before any effect of a step starts.
import type { NewEvent } from './schema.js';
import { placeStaged, stageFile, syncDirInPool, type StagedFile } from '../sys/atomic.js';
import { GroupCommit } from './group-commit.js';
import type { LogDigest } from './digest.js';
import { makeEventFile, type RunPaths, type WriteOptions } from './write.js';

/** A file being written and synced: settles with it, or with the error that stopped it (never rejects). */
type Written = Promise<StagedFile | Error>;

// What the run's event log is appended to: the files here, or PostgreSQL (src/store/pg/event-group.ts).
export interface EventSink {
  // Adds an event (not yet in the log: the next flush puts it there); returns it and its name.
  add<E extends NewEvent>(event: E): { full: E & { at: string; run_id: string }; name: string };
  // Resolves once every event added so far is in the log and durable.
  flush(): Promise<void>;
  readonly pending: boolean;
}

export class EventGroup extends GroupCommit<Written> implements EventSink {
  constructor(
    private readonly paths: RunPaths,
    private readonly runId: string,
    private readonly options: WriteOptions & { digest?: LogDigest },
  ) {
    super();
  }

  // Writes an event (not yet in the log: the next flush puts it there); returns it and its file name.
  add<E extends NewEvent>(event: E): { full: E & { at: string; run_id: string }; name: string } {
    const { full, name, text } = makeEventFile(this.runId, event);
    this.stage(stageFile(this.paths.eventsDir, name, text, this.options).catch((error: Error) => error));
    this.options.digest?.add(name, text);
    return { full, name };
  }

  protected async commit(batch: Written[]): Promise<void> {
    const files = await Promise.all(batch);
    const failed = files.find((file): file is Error => file instanceof Error);
    if (failed) throw failed;
    // On the event loop: a rename within one folder is quick, and each one sent to the thread
    // pool would wait behind the fsyncs there, one after the other.
    for (const file of files as StagedFile[]) placeStaged(file);
    if (this.options.fsync) await syncDirInPool(this.paths.eventsDir);
  }
}

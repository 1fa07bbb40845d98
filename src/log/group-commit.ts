// The order of a log's commits, whatever holds the log: flush() commits everything added so far,
// after the commit before it has finished; the flushes asked for while one commit is under way share
// the next one, which takes everything added by the time it starts. The first commit that fails
// fails every later one too, so the log is always a prefix of what was added, never a hole.
export abstract class GroupCommit<Item> {
  private staged: Item[] = [];
  /** The commit under way, and the one queued behind it (it takes what is added until it starts). */
  private running?: Promise<void>;
  private queued?: Promise<void>;
  /** The last commit begun or queued: a flush with nothing new added waits for it. */
  private last: Promise<void> = Promise.resolve();
  /** Set by the first commit that failed: nothing is committed after it. */
  protected failure?: Error;

  // Puts the items of one batch into the log, in order; throws when it could not.
  protected abstract commit(batch: Item[]): Promise<void>;

  protected stage(item: Item): void {
    this.staged.push(item);
  }

  // Resolves once everything added so far is in the log; rejects, leaving these items and every
  // later one out of the log, when a commit fails.
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

  /** Whether items were added that no flush has taken yet. */
  get pending(): boolean {
    return this.staged.length > 0;
  }

  // Commits what is added now; the next flush waits for this one.
  private begin(): Promise<void> {
    this.queued = undefined;
    const batch = this.staged.splice(0);
    const running = this.guarded(batch).finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    this.last = quiet(running);
    return running;
  }

  private async guarded(batch: Item[]): Promise<void> {
    if (this.failure) throw this.failure;
    try {
      await this.commit(batch);
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

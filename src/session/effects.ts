// How a run's effects end: a cancel's force, effects in flight that the end waits for, and a fatal
// error of our own that stops the drive loop (the log stays resumable).
export class CancelScope {
  /** Set by a forced cancel: stops skip what is left of their grace period. */
  force = false;
  /** Set when an effect failed with our own bug. */
  fatal?: Error;
  private onFatal?: (error: Error) => void;
  private readonly forceListeners = new Set<() => void>();
  private readonly inFlight = new Set<Promise<unknown>>();

  // A forced cancel: every stop in progress skips what is left of its grace period.
  forceStops(): void {
    this.force = true;
    for (const listener of this.forceListeners) listener();
  }

  // Calls `listener` on a forced cancel; returns the function that stops listening.
  onForce(listener: () => void): () => void {
    this.forceListeners.add(listener);
    return () => this.forceListeners.delete(listener);
  }

  // Tracks an effect so that the run does not end before it settles.
  track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    void promise.finally(() => this.inFlight.delete(promise)).catch(() => {});
    return promise;
  }

  // Resolves once every tracked effect has settled.
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  // An effect failed with our own bug: stop driving the run; the log stays resumable.
  fail(error: Error): void {
    this.fatal ??= error;
    this.onFatal?.(error);
  }

  // Calls `listener` on the first fatal error.
  whenFatal(listener: (error: Error) => void): void {
    this.onFatal = listener;
  }
}

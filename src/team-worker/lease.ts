// Keeps a lease while an attempt runs: renews it every TTL/4; when the store says it is gone, or when
// it could not be renewed for TTL less a margin, `onLost` is called once (the worker stops the agent).

// Before the lease expires on the server, the agent is stopped this much earlier (5 s; a quarter of
// a short TTL), so that no two machines ever run one attempt.
export function stopMarginMs(ttlMs: number): number {
  return Math.min(5_000, ttlMs / 4);
}

export interface KeptLease {
  /** Ends the renewals; the lease stays as it is until its worker reports or it expires. */
  stop(): void;
}

// Starts renewing a lease taken at `takenAt` (before the taking was asked); `renew` resolves false when
// the lease is gone and throws when the store cannot be reached.
export function keepLease(renew: () => Promise<boolean>, ttlMs: number, takenAt: number, onLost: (reason: string) => void): KeptLease {
  let lastRenewal = takenAt;
  let ended = false;
  let busy = false;
  const lose = (reason: string) => {
    if (ended) return;
    ended = true;
    clearInterval(ticker);
    clearTimeout(deadline);
    onLost(reason);
  };
  const armDeadline = () => setTimeout(() => lose(`its lease could not be renewed for ${Math.round((ttlMs - stopMarginMs(ttlMs)) / 100) / 10} s`), lastRenewal + ttlMs - stopMarginMs(ttlMs) - Date.now());
  let deadline = armDeadline();
  const ticker = setInterval(async () => {
    if (busy || ended) return;
    busy = true;
    // Counted from before the request: the server's expiry is at least this late.
    const asked = Date.now();
    try {
      if (await renew()) {
        lastRenewal = asked;
        clearTimeout(deadline);
        if (!ended) deadline = armDeadline();
      } else lose('its lease is gone (expired, or the attempt ended in the log)');
    } catch {
      // The store cannot be reached now: the deadline decides.
    } finally {
      busy = false;
    }
  }, ttlMs / 4);
  return {
    stop: () => {
      ended = true;
      clearInterval(ticker);
      clearTimeout(deadline);
    },
  };
}

// A cancel that comes while a run is being taken over (its lock taken, its cancel listener not yet
// there) would end the process on the spot, its signal unheard: such signals are held from the
// moment the lock is taken and heard once the run listens (listen.ts).
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type CancelSignal = (typeof SIGNALS)[number];

export interface HeldSignals {
  /** Stops holding (once); the signals that came, in the order they came. */
  release(): CancelSignal[];
}

// Holds SIGINT, SIGTERM and SIGHUP until released.
export function holdCancelSignals(): HeldSignals {
  const came: CancelSignal[] = [];
  const handlers = SIGNALS.map((signal) => [signal, () => came.push(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  let held = true;
  return {
    release() {
      if (held) for (const [signal, handler] of handlers) process.off(signal, handler);
      held = false;
      return came.splice(0);
    },
  };
}

// What an attempt on this machine spent so far (src/attempt/spend-read.ts, as the orchestrator's own
// watchdog reads it), sent to the run's writer in `spend` reports, which log it and check the budget;
// over the attempt's own cap, the attempt is stopped here.
import type { AgentAdapter, AgentConfig } from '../../workers/types.js';
import { SpendReader } from '../attempt/spend-read.js';

// How often the output is looked at (the reader reads it again at most every few seconds).
const LOOK_MS = 1_000;

// A spend report's body: the attempt's totals so far and their number, which makes the same report
// sent again one report (the store takes each number once).
export interface SpendBody {
  n: number;
  cost_usd?: number;
  tokens?: { input: number; output: number };
}

export interface SpendWatcher {
  /** Stops looking; resolves once a report being sent is written (so that it comes before the end's usage). */
  stop(): Promise<void>;
}

// Looks while the attempt runs: `send` gets each new total (true once written or refused, a throw to
// send it again at the next look), `onOver` why the attempt must stop when it spent over its cap.
export function watchSpend(adapter: AgentAdapter, agentName: string, agent: AgentConfig, outputFile: string, send: (body: SpendBody) => Promise<unknown>, onOver: (reason: string) => void): SpendWatcher {
  const reader = new SpendReader(adapter, agentName, agent, outputFile);
  let n = 0;
  let unsent: SpendBody | undefined;
  let sending: Promise<void> | undefined;
  let over = false;
  // One report at a time: the latest total, until it is written.
  const flush = () => {
    if (sending || !unsent) return;
    const body = unsent;
    sending = send(body)
      .then(() => {
        if (unsent === body) unsent = undefined;
      })
      .catch(() => undefined)
      .finally(() => (sending = undefined));
  };
  const timer = setInterval(() => {
    const { changed, over: reason } = reader.look();
    if (changed) unsent = { n: ++n, ...(changed.costUsd !== undefined && { cost_usd: changed.costUsd }), ...(changed.tokens && { tokens: changed.tokens }) };
    flush();
    if (reason && !over) {
      over = true;
      onOver(reason);
    }
  }, LOOK_MS);
  return {
    stop: async () => {
      clearInterval(timer);
      await sending;
    },
  };
}

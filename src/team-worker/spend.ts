// What an attempt on this machine spent so far (as the watch reads it, src/attempt/execute.ts), sent
// to the run's writer as attempt_spend events, which it logs and checks against the budget.
import type { SpendSoFar } from '../../workers/types.js';
import { spendEvent, type AttemptNews, type AttemptWho } from '../attempt/news.js';

// A report that could not be written is sent again after this long (the latest total then).
const RESEND_MS = 1_000;

// A spend report's body: the attempt_spend event of the totals so far and their number, which makes
// the same report sent again one report (the store takes each number once).
export type SpendBody = AttemptNews<'attempt_spend'> & { n: number };

// Sends the totals one report at a time, the latest until it is written: `send` resolves once it is
// written or refused, and throws to be tried again.
export class SpendSender {
  private n = 0;
  private unsent: SpendBody | undefined;
  private sending: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly who: AttemptWho,
    private readonly send: (body: SpendBody) => Promise<unknown>,
  ) {}

  offer(spend: SpendSoFar): void {
    this.unsent = { ...spendEvent(this.who, spend), n: ++this.n };
    this.flush();
  }

  /** Stops sending; resolves once a report being sent is written (so that it comes before the end's usage). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.sending;
  }

  private flush(): void {
    if (this.sending || !this.unsent || this.stopped) return;
    const body = this.unsent;
    this.sending = this.send(body)
      .then(() => {
        if (this.unsent === body) this.unsent = undefined;
      })
      .catch(() => {
        clearTimeout(this.retry);
        if (!this.stopped) this.retry = setTimeout(() => this.flush(), RESEND_MS);
      })
      .finally(() => (this.sending = undefined));
  }
}

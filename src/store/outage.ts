// A command that follows a run on the PostgreSQL store (`team wait`, `team watch`) through an
// outage of the store: a look that fails because the store is away is absorbed, and the command
// looks again; past the bound (team.storeOutageMs) it gives up, naming since when.
import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT, TeamError } from '../sys/errors.js';
import { describeUrl, isConnectionLoss, StoreLostError, StoreUnreachableError } from './pg/connect.js';


export class StoreOutage {
  private since?: Date;

  constructor(
    private readonly url: string,
    private readonly outageMs: number,
  ) {}

  // True when `error` is the store being away and the bound is not passed: look again later.
  // Past the bound it throws, naming since when; any other error is not absorbed.
  absorbs(error: unknown): boolean {
    if (!(error instanceof StoreUnreachableError) && !(error instanceof StoreLostError) && !isConnectionLoss(error)) return false;
    this.since ??= new Date();
    if (Date.now() - this.since.getTime() < this.outageMs) return true;
    throw new TeamError(`the store ${describeUrl(this.url)} is unreachable since ${this.since.toISOString()}; the run is not changed by this: look again once the store is back`, EXIT.failed);
  }

  // A failure of the store that is not an outage to ride out: named as the store going away.
  lost(error: Error): StoreLostError {
    return new StoreLostError(this.url, error);
  }

  // The store answered: an outage, if any, is over.
  over(): void {
    this.since = undefined;
  }

  // `look` made again every `everyMs` while the store is away, up to the bound: the first look of a
  // follower (which run) may meet the outage as well as any later one.
  async retry<T>(look: () => Promise<T>, everyMs = 500): Promise<T> {
    return this.again(look, everyMs, () => true);
  }

  // The store opened again while it went away once reached (a restart during the schema's check),
  // and while it cannot be reached after that; a store never reached is refused at once, as by every
  // command.
  async open<T>(open: () => Promise<T>, everyMs = 500): Promise<T> {
    let reached = false;
    return this.again(open, everyMs, (error) => (error instanceof StoreLostError ? (reached = true) : reached && error instanceof StoreUnreachableError));
  }

  private async again<T>(look: () => Promise<T>, everyMs: number, outage: (error: unknown) => boolean): Promise<T> {
    for (;;) {
      try {
        const answer = await look();
        this.over();
        return answer;
      } catch (error) {
        if (!outage(error) || !this.absorbs(error)) throw error;
      }
      await sleep(everyMs);
    }
  }
}


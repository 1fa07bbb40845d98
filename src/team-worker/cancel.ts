// A cancel asked from any machine reaches the worker by NOTIFY: it stops that run's attempts at once
// (the writer records them ended, which the lease renewal would also find, a quarter TTL later).
import { lastRequestId, readRequests } from '../store/pg/requests.js';
import type { PgStore } from '../store/pg/store.js';
import type { RunningAttempt } from './attempt.js';

// The longest grace a cancel request can give (team.shutdownTimeoutMs is bounded likewise).
const MAX_GRACE_MS = 600_000;

// The runs this worker has attempts of, where each run's requests were read up to, and what to stop.
export class CancelWatch {
  private readonly runs = new Map<string, { position: number; attempts: Set<RunningAttempt> }>();

  constructor(
    private readonly store: PgStore,
    private readonly say: (line: string) => void,
  ) {}

  // Follows the run's requests from now on, while `attempt` runs.
  async track(runId: string, attempt: RunningAttempt): Promise<void> {
    const known = this.runs.get(runId);
    if (known) return void known.attempts.add(attempt);
    // -1 until read: a request announced meanwhile is left to the lease (the writer ends the attempt).
    const entry = { position: -1, attempts: new Set([attempt]) };
    this.runs.set(runId, entry);
    entry.position = await lastRequestId(this.store, runId);
  }

  // The attempt ended: its run is forgotten with its last attempt.
  untrack(runId: string, attempt: RunningAttempt): void {
    const known = this.runs.get(runId);
    known?.attempts.delete(attempt);
    if (known?.attempts.size === 0) this.runs.delete(runId);
  }

  // A request of `runId` committed: a new cancel stops the run's attempts here.
  async onRequest(runId: string): Promise<void> {
    const known = this.runs.get(runId);
    if (!known || known.position < 0) return;
    const requests = await readRequests(this.store, runId, known.position);
    known.position = requests.at(-1)?.id ?? known.position;
    const cancel = requests.find((r) => r.kind === 'cancel');
    if (!cancel) return;
    this.say(`■ run ${runId} cancelled: stopping its ${known.attempts.size} attempt(s) here`);
    // An attempt with the team tools was asked to stop by the writer: it gets the grace to end itself.
    const grace = cancel.body.force === true || typeof cancel.body.grace_ms !== 'number' ? 0 : Math.min(cancel.body.grace_ms, MAX_GRACE_MS);
    await Promise.allSettled([...known.attempts].map((attempt) => (grace > 0 && attempt.hasTools() ? attempt.stopAfter(grace, 'the run was cancelled') : attempt.stop('the run was cancelled'))));
  }

  // The listener was away (its connection dropped and was made again): every run's requests are read
  // for what a lost notification would have said.
  async onGap(): Promise<void> {
    await Promise.allSettled([...this.runs.keys()].map((runId) => this.onRequest(runId)));
  }
}

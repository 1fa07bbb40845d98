// A cancel asked from any machine reaches the worker by NOTIFY: it stops that run's attempts at once
// (the writer records them ended, which the lease renewal would also find, a quarter TTL later). So
// does the writer's stop of one attempt (its run's budget spent, or the run failing), which nothing
// else would end before the attempt's own end.
import { readRequests, type PgStore, type RunRequest } from '../store/attempt-queue.js';
import type { RunningAttempt } from './attempt.js';

// The longest grace a cancel request can give (team.shutdownTimeoutMs is bounded likewise).
const MAX_GRACE_MS = 600_000;

const keyOf = (taskId: unknown, attempt: unknown) => `${String(taskId)}#${String(attempt)}`;

// What the worker follows of one run: where its requests were read up to, its attempts here, and the
// attempts the writer asked to stop (with why), which may be asked before their attempt is tracked.
interface RunWatch {
  position: number;
  attempts: Set<RunningAttempt>;
  stops: Map<string, string>;
}

// The runs this worker has attempts of, where each run's requests were read up to, and what to stop.
export class CancelWatch {
  private readonly runs = new Map<string, RunWatch>();

  constructor(
    private readonly store: PgStore,
    private readonly say: (line: string) => void,
  ) {}

  // Follows the run's requests from now on, while `attempt` runs; a stop asked for it already stops it.
  async track(runId: string, attempt: RunningAttempt): Promise<void> {
    const known = this.runs.get(runId);
    if (known) {
      known.attempts.add(attempt);
      return this.stopIfAsked(known, attempt);
    }
    // -1 until read: a cancel announced meanwhile is left to the lease (the writer ends the attempt);
    // the stops are all read, whenever they were asked.
    const entry: RunWatch = { position: -1, attempts: new Set([attempt]), stops: new Map() };
    this.runs.set(runId, entry);
    const requests = await readRequests(this.store, runId, 0);
    for (const request of requests) noteStop(entry, request);
    entry.position = requests.at(-1)?.id ?? 0;
    await Promise.all([...entry.attempts].map((running) => this.stopIfAsked(entry, running)));
    // What committed while the run's requests were read.
    await this.onRequest(runId);
  }

  // The attempt ended: its run is forgotten with its last attempt.
  untrack(runId: string, attempt: RunningAttempt): void {
    const known = this.runs.get(runId);
    known?.attempts.delete(attempt);
    if (known?.attempts.size === 0) this.runs.delete(runId);
  }

  // A request of `runId` committed: a new cancel stops the run's attempts here, a stop the attempt it names.
  async onRequest(runId: string): Promise<void> {
    const known = this.runs.get(runId);
    if (!known || known.position < 0) return;
    const requests = await readRequests(this.store, runId, known.position);
    known.position = requests.at(-1)?.id ?? known.position;
    for (const request of requests) noteStop(known, request);
    await Promise.all([...known.attempts].map((running) => this.stopIfAsked(known, running)));
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

  private async stopIfAsked(run: RunWatch, attempt: RunningAttempt): Promise<void> {
    const key = keyOf(attempt.taskId, attempt.attempt);
    const reason = run.stops.get(key);
    if (reason === undefined) return;
    run.stops.delete(key);
    this.say(`■ ${attempt.taskId} a${attempt.attempt}: the run's writer stops it (${reason})`);
    await attempt.stop(reason).catch(() => undefined);
  }
}

// A stop request remembered: its attempt may start here later, or be running now.
function noteStop(run: RunWatch, request: RunRequest): void {
  if (request.kind !== 'stop') return;
  const reason = typeof request.body.reason === 'string' && request.body.reason !== '' ? request.body.reason : 'the run stopped it';
  run.stops.set(keyOf(request.body.task_id, request.body.attempt), reason);
}

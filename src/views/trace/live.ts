// A run's trace sent while the run goes (issue 41): each span once, when the log's durable events
// end it (an attempt at its task_finished, a stage at its end, a gate at its result, the run and
// what is still open at the run's end), through the official exporter (export.ts). One request at a
// time; what ends meanwhile goes in the next. A receiver that refuses, fails or does not answer in
// time never slows or fails the run: the first failure is told once, and the run sends no more
// (`team trace` sends the whole trace later). A takeover is told what the log held: the spans that
// ended there were the earlier orchestrator's to send, and the ones still open go on (same ids).
import type { TeamConfig } from '../../../config/schema.js';
import type { TeamEvent } from '../../log/schema.js';
import { readVersion } from '../../sys/version.js';
import type { SpanSender } from './export.js';
import { TraceBuilder, type TraceSpan } from './spans.js';
import { liveTarget, type LiveTarget } from './target.js';

export interface LiveTraceAsk {
  runId: string;
  telemetry: TeamConfig['team']['telemetry'];
  env: NodeJS.ProcessEnv;
  /** What the log held when this orchestrator began (a takeover's read); a new run: nothing. */
  earlier: readonly TeamEvent[];
  /** Tells a person, once, that the receiver failed. */
  warn: (line: string) => void;
}

// The live export of a run, or undefined when nothing asks for one; feed it the log's durable events.
export function startLiveTrace(ask: LiveTraceAsk): ((batch: readonly TeamEvent[]) => void) | undefined {
  const target = liveTarget(ask.telemetry, ask.env);
  if (!target) return undefined;
  const live = new LiveTrace(ask, target);
  return (batch) => live.take(batch);
}

class LiveTrace {
  private readonly trace: TraceBuilder;
  /** Span ids sent (or the earlier orchestrator's to send): never sent twice. */
  private readonly sent = new Set<string>();
  private queue: TraceSpan[] = [];
  private sending = false;
  private down = false;
  private readonly sender: Promise<SpanSender | undefined>;

  constructor(
    private readonly ask: LiveTraceAsk,
    private readonly target: LiveTarget,
  ) {
    this.trace = new TraceBuilder(ask.runId, { content: target.content });
    for (const e of ask.earlier) for (const span of this.trace.add(e)) this.sent.add(span.spanId);
    this.sender = import('./export.js').then(
      ({ openSender }) => openSender({ ...(target.endpoint !== undefined && { endpoint: target.endpoint }), env: target.env, version: readVersion(), ...(target.timeoutMs !== undefined && { timeoutMs: target.timeoutMs }) }),
      (error: unknown) => void this.fail(error),
    );
    this.sender.catch((error: unknown) => this.fail(error));
  }

  // The log's events just made durable, in order.
  take(batch: readonly TeamEvent[]): void {
    if (this.down) return;
    for (const e of batch) {
      for (const span of this.trace.add(e)) {
        if (this.sent.has(span.spanId)) continue;
        this.sent.add(span.spanId);
        // As it is now: the builder goes on changing its own (a resumed stage's end, the run's events).
        this.queue.push(structuredClone(span));
      }
    }
    this.pump();
  }

  private pump(): void {
    if (this.sending || this.down || this.queue.length === 0) return;
    this.sending = true;
    const batch = this.queue.splice(0);
    this.sender
      .then((sender) => sender?.send(batch))
      .then(
        () => {
          this.sending = false;
          this.pump();
        },
        (error: unknown) => {
          this.sending = false;
          this.fail(error);
        },
      );
  }

  private fail(error: unknown): void {
    if (this.down) return;
    this.down = true;
    this.queue = [];
    const why = error instanceof Error ? error.message : String(error);
    this.ask.warn(`telemetry: the receiver at ${this.target.shown} did not take the run's spans (${why || 'no answer'}); this run sends it no more (\`team trace --run ${this.ask.runId}\` sends the whole trace later)`);
    void this.sender.then((sender) => sender?.shutdown(), () => undefined);
  }
}

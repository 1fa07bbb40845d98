// What the run's team workers say (PostgreSQL store), in the log's own events (src/attempt/news.ts),
// checked and appended by the run's writer: a worker took an attempt (attempt_taken), what it spent
// so far (attempt_spend, with the budget checked), its usage (attempt_usage), that it stalled
// (attempt_stalled, once), that its CLI retries a rate limit (attempt_retrying); and its end — the
// finished report, or a lease its worker stopped renewing — handed to the attempt effect waiting
// for it. Every report is read again by a new writer (a resume) and folded only when the log lacks
// it: one attempt_taken per attempt, each usage and spend report once (by its seq), ends only of
// attempts the log has not ended.
import type { AttemptInput } from '../../machines/types.js';
import { applyReportFact } from '../log/fold/tasks.js';
import type { WorkerReports } from '../log/fold/types.js';
import { readWorkerNews, type ExpiredLease, type PgStore, type Report } from '../store/attempt-queue.js';
import { workerWord } from '../domain/worker-word.js';
import { plausibleSpend } from '../attempt/spend-read.js';
import { recordSpend } from '../attempt/spend-watch.js';
import { tellRetry } from '../attempt/watchdog.js';
import { NEWS_EVENTS, retryingEvent, stalledEvent, usageEvent, type AttemptNews, type AttemptWho, type NewsName } from '../attempt/news.js';
import { z } from 'zod';
import { once } from '../sys/once.js';
import { EVENT_SCHEMAS } from '../log/schema.js';
import type { CliRetry } from '../../workers/types.js';
import type { EventLog } from '../session/event-log.js';
import type { Progress } from '../session/progress.js';
import type { Logger } from '../sys/logger.js';

// What of the run's session the news needs: its log, where it says things, its id.
export interface NewsParts {
  runId: string;
  events: EventLog;
  log: Logger;
  progress: Progress;
}

// How often the writer asks for news while attempts wait.
const POLL_MS = 200;

export type RemoteEnd = { kind: 'finished'; report: Report } | { kind: 'expired'; lease: ExpiredLease };

const keyOf = (taskId: string, attempt: number) => `${taskId}#${attempt}`;

// A stalled attempt's silence in ms as a worker says it: a whole number of at most a year.
const MAX_SILENT_MS = 365 * 24 * 3600 * 1000;
// A retry's counts as a worker says them: at most this.
const MAX_RETRIES = 10_000;

// A worker's event of an attempt it holds, read with the log's own schema: one of NEWS_EVENTS, of the
// report's own task and attempt; undefined for anything else (the store's rows could have been
// written by anyone who can write the database). What the writer knows better — which run worker and
// agent the attempt is, the worker's id — it takes from its own records, not from the event.
export function workerEvent(report: Pick<Report, 'taskId' | 'attempt' | 'body'>): WorkerEvent | undefined {
  const name = typeof report.body === 'object' && report.body !== null ? (report.body as { event?: unknown }).event : undefined;
  const schema = newsSchemas().get(name as NewsName);
  const parsed = schema?.safeParse(report.body);
  if (!parsed?.success) return undefined;
  const { report: _seq, ...event } = parsed.data as WorkerEvent & { report?: unknown };
  return event.task_id === report.taskId && event.attempt === report.attempt ? event : undefined;
}

// One of the events a worker may post, as the log's schema reads it.
type WorkerEvent = { [N in NewsName]: Omit<AttemptNews<N>, 'report'> }[NewsName];

// Each such event's schema without what the log adds; its `report` (the writer's to set) is ignored.
// Made at the first worker's event (a run on the PostgreSQL store), not at every command's start.
const newsSchemas = once(() => new Map<NewsName, z.ZodType>(NEWS_EVENTS.map((name) => [name, (EVENT_SCHEMAS[name] as unknown as z.ZodObject).omit({ at: true, run_id: true }).extend({ report: z.unknown().optional() })])));

// A stalled event's silence, whole and bounded.
export function silentMsOf(event: AttemptNews<'attempt_stalled'>): number {
  return event.silent_ms >= 0 ? Math.round(Math.min(event.silent_ms, MAX_SILENT_MS)) : 0;
}

// A retrying event's notice, checked as the store's rows are: the reason as a worker's words, the
// counts and the delay within bounds.
export function retryOf(event: AttemptNews<'attempt_retrying'>): CliRetry {
  const bounded = (value: number | undefined, most: number) => (value !== undefined && value <= most ? value : undefined);
  const n = bounded(event.retry, MAX_RETRIES);
  const max = bounded(event.of, MAX_RETRIES);
  const delayMs = bounded(event.retry_after_ms, MAX_SILENT_MS);
  return { reason: workerWord(event.reason, 'a rate limit'), ...(n !== undefined && { n }), ...(max !== undefined && { max }), ...(delayMs !== undefined && { delayMs }) };
}

export class WorkerNews {
  private position = 0;
  private readonly waiting = new Map<string, { input: AttemptInput; resolve: (end: RemoteEnd) => void }>();
  /** Ends read before their attempt's effect asked (a resumed run). */
  private readonly ends = new Map<string, RemoteEnd>();
  /** The reports the log holds (the fold's, kept on as this writer appends). */
  private readonly reports: WorkerReports;
  private readonly started = new Map<string, { stage: string; agent: string; worker?: string }>();
  private readonly finished = new Set<string>();
  /** The run's worker (worker-N) each task was last assigned to, as the log held it. */
  private readonly assigned: ReadonlyMap<string, string>;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private unreachable = false;
  private refused = false;

  constructor(
    private readonly session: NewsParts,
    private readonly store: PgStore,
  ) {
    const st = session.events.fold.state;
    this.reports = structuredClone(st.reports);
    this.assigned = new Map(st.assigned);
    for (const task of st.tasks.values()) {
      for (const { attempt, stage, agent, startedAt } of task.attempts) {
        const key = keyOf(task.id, attempt);
        if (startedAt !== undefined) this.started.set(key, { stage, agent });
        if (st.terminalFiles.has(key)) this.finished.add(key);
      }
    }
  }

  // Resolves with how the attempt ended on its worker (its job is in the queue, or running).
  waitFor(input: AttemptInput): Promise<RemoteEnd> {
    const key = keyOf(input.taskId, input.attempt);
    this.started.set(key, { stage: input.stage, agent: input.agent, worker: input.worker });
    const end = this.ends.get(key);
    if (end) {
      this.ends.delete(key);
      return Promise.resolve(end);
    }
    const ended = new Promise<RemoteEnd>((resolve) => this.waiting.set(key, { input, resolve }));
    this.schedule(0);
    return ended;
  }

  // The attempt's effect is done with it (it recorded its end, or gave up waiting).
  forget(input: AttemptInput): void {
    this.waiting.delete(keyOf(input.taskId, input.attempt));
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.poll().finally(() => {
        if (this.waiting.size > 0) this.schedule(POLL_MS);
      });
    }, ms);
  }

  private async poll(): Promise<void> {
    let news;
    try {
      news = await readWorkerNews(this.store, this.session.runId, this.position);
    } catch (error) {
      // The store is away for a moment: asked again at the next tick (a lost writer lock stops the
      // run). Said once until a read succeeds again.
      if (!this.unreachable) this.session.log.warn({ err: error }, 'the workers\' reports cannot be read now');
      this.unreachable = true;
      return;
    }
    this.unreachable = false;
    for (const report of news.reports) this.fold(report);
    this.position = news.position;
    for (const lease of news.expired) this.end(keyOf(lease.taskId, lease.attempt), { kind: 'expired', lease });
    void this.session.events.settled();
  }

  private fold(report: Report): void {
    const key = keyOf(report.taskId, report.attempt);
    if (this.finished.has(key)) return;
    if (report.kind === 'finished') return this.end(key, { kind: 'finished', report });
    // The output's last line is the live view's (store/pg/tails.ts); a kind an earlier worker wrote is no event.
    if ((report.kind as string) === 'output-tail') return;
    const event = report.kind === 'event' ? workerEvent(report) : undefined;
    if (!event) return this.refuse(report);
    const attempt = this.started.get(key);
    if (event.event === 'attempt_taken' && !this.reports.taken.has(key)) {
      const workerId = workerWord(report.workerId, 'a worker');
      const host = workerWord(event.host, 'another machine');
      this.append({
        event: 'attempt_taken',
        task_id: report.taskId,
        attempt: report.attempt,
        worker: attempt?.worker ?? this.assigned.get(report.taskId) ?? workerId,
        worker_id: workerId,
        host,
        pid: event.pid,
        ...(event.pid_start !== undefined && { pid_start: event.pid_start }),
        boot_id: workerWord(event.boot_id, ''),
        report: report.seq,
      });
      this.session.progress.emit({ type: 'attempt.taken', task: report.taskId, attempt: report.attempt, workerId, host }, `▶ ${report.taskId} a${report.attempt} taken by worker ${workerId} on ${host}`);
    }
    // The writer names the attempt's stage and agent as it started it.
    if (!attempt) return;
    const who = { taskId: report.taskId, attempt: report.attempt, stage: attempt.stage, agent: attempt.agent, worker: this.workerOf(report.taskId, report.attempt) } as AttemptWho;
    if (event.event === 'attempt_spend' && !this.reports.seqs.has(report.seq)) {
      // What the attempt spent so far: logged and checked against the budget as the orchestrator's own watch does.
      const spend = plausibleSpend({ costUsd: event.cost_usd, tokens: event.tokens });
      if (spend) applyReportFact(this.reports, recordSpend(this.session, who, spend, report.seq));
    }
    if (event.event === 'attempt_usage' && !this.reports.seqs.has(report.seq)) {
      const usage = usageEvent(who, { costUsd: event.cost_usd, tokens: event.tokens, ...(event.session_id !== undefined && { sessionId: workerWord(event.session_id, '') }) });
      if (usage) this.append({ ...usage, report: report.seq });
    }
    if (event.event === 'attempt_stalled' && !this.reports.stalled.has(key)) {
      const silentMs = silentMsOf(event);
      this.append(stalledEvent(who, silentMs));
      this.session.progress.emit({ type: 'attempt.stalled', task: report.taskId, attempt: report.attempt, silentMs }, `… ${report.taskId} a${report.attempt} stalled on its worker: no progress for ${Math.round(silentMs / 1000)}s`);
    }
    if (event.event === 'attempt_retrying' && !this.reports.seqs.has(report.seq)) {
      // A rate limit the CLI retries itself, on its worker: told live and recorded as the writer's own
      // watch records it (once an episode: the worker reports each episode once).
      const retry = retryOf(event);
      tellRetry(this.session, who, retry);
      // Committed, not only appended: the machine takes it (the agent's lanes halve, a back-off starts).
      applyReportFact(this.reports, this.session.events.commit({ ...retryingEvent(who, retry), report: report.seq }));
    }
  }

  // A report that is none of the log's events of its attempt is left out, and said once a run.
  private refuse(report: Report): void {
    if (this.refused) return;
    this.refused = true;
    const event = (report.body as { event?: unknown } | null)?.event;
    this.session.log.warn({ seq: report.seq, task: report.taskId, attempt: report.attempt, kind: report.kind, ...(typeof event === 'string' && { event: event.slice(0, 64) }) }, 'a worker\'s report is not an event of its attempt; left out');
  }

  // The run's worker (worker-N, lead) an attempt was started on, as the log holds it now.
  private workerOf(taskId: string, attempt: number): string {
    return this.session.events.fold.state.tasks.get(taskId)?.attempts.find((a) => a.attempt === attempt)?.worker ?? 'a team worker';
  }

  private end(key: string, end: RemoteEnd): void {
    if (this.finished.has(key)) return;
    const waiter = this.waiting.get(key);
    if (!waiter) {
      if (!this.ends.has(key) || end.kind === 'finished') this.ends.set(key, end);
      return;
    }
    this.waiting.delete(key);
    this.finished.add(key);
    waiter.resolve(end);
  }

  private append(event: Parameters<EventLog['append']>[0]): void {
    applyReportFact(this.reports, this.session.events.append(event));
  }
}

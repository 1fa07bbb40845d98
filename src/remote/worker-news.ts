// What the run's team workers say (PostgreSQL store), turned into the log's facts by the run's
// writer: a worker took an attempt (attempt_taken), what it spent so far (attempt_spend, with the
// budget checked), its usage (attempt_usage), that it stalled (attempt_stalled, once), and its end —
// the finished report, or a lease its worker stopped renewing — handed to the attempt effect waiting
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
import { retryingEvent, tellRetry } from '../attempt/watchdog.js';
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

// A stalled report's silence in ms: a whole number of at most a year, 0 for anything else.
const MAX_SILENT_MS = 365 * 24 * 3600 * 1000;
export function silentMsOf(body: unknown): number {
  const silent = (body as { silent_ms?: unknown } | null)?.silent_ms;
  return typeof silent === 'number' && Number.isFinite(silent) && silent >= 0 ? Math.round(Math.min(silent, MAX_SILENT_MS)) : 0;
}

// A retrying report's notice, checked as the store's rows are: the reason as a worker's words,
// counts and the delay whole numbers within bounds.
export function retryOf(body: unknown): CliRetry {
  const b = (body ?? {}) as { reason?: unknown; n?: unknown; max?: unknown; delay_ms?: unknown };
  const count = (value: unknown, most: number) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= most ? value : undefined);
  const n = count(b.n, 10_000);
  const max = count(b.max, 10_000);
  const delayMs = count(b.delay_ms, MAX_SILENT_MS);
  return { reason: workerWord(b.reason, 'a rate limit'), ...(n !== undefined && { n }), ...(max !== undefined && { max }), ...(delayMs !== undefined && { delayMs }) };
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
    const attempt = this.started.get(key);
    if (report.kind === 'spawned' && !this.reports.taken.has(key)) {
      const handle = (report.body.handle ?? {}) as { pid?: unknown; bootId?: unknown };
      const workerId = workerWord(report.workerId, 'a worker');
      const host = workerWord(report.body.host, 'another machine');
      this.append({
        event: 'attempt_taken',
        task_id: report.taskId,
        attempt: report.attempt,
        worker: attempt?.worker ?? this.assigned.get(report.taskId) ?? workerId,
        worker_id: workerId,
        host,
        pid: Number.isInteger(handle.pid) ? (handle.pid as number) : 0,
        boot_id: workerWord(handle.bootId, ''),
        report: report.seq,
      });
      this.session.progress.emit({ type: 'attempt.taken', task: report.taskId, attempt: report.attempt, workerId, host }, `▶ ${report.taskId} a${report.attempt} taken by worker ${workerId} on ${host}`);
    }
    if (report.kind === 'spend' && !this.reports.seqs.has(report.seq) && attempt) {
      // What the attempt spent so far: logged and checked against the budget as the orchestrator's own watchdog does.
      const spend = plausibleSpend({ costUsd: report.body.cost_usd, tokens: report.body.tokens as { input?: unknown; output?: unknown } | undefined });
      if (spend) applyReportFact(this.reports, recordSpend(this.session, { taskId: report.taskId, attempt: report.attempt, stage: attempt.stage, agent: attempt.agent }, spend, report.seq));
    }
    if (report.kind === 'usage' && !this.reports.seqs.has(report.seq) && attempt) {
      const body = report.body as { session_id?: unknown; cost_usd?: unknown; tokens?: { input?: unknown; output?: unknown } };
      const spend = plausibleSpend({ costUsd: body.cost_usd, tokens: body.tokens });
      this.append({
        event: 'attempt_usage',
        task_id: report.taskId,
        attempt: report.attempt,
        stage: attempt.stage,
        agent: attempt.agent,
        ...(typeof body.session_id === 'string' ? { session_id: workerWord(body.session_id, '') } : {}),
        ...(spend?.costUsd !== undefined ? { cost_usd: spend.costUsd } : {}),
        ...(spend?.tokens ? { tokens: spend.tokens } : {}),
        report: report.seq,
      });
    }
    if (report.kind === 'stalled' && attempt && !this.reports.stalled.has(key)) {
      const silentMs = silentMsOf(report.body);
      this.append({ event: 'attempt_stalled', task_id: report.taskId, attempt: report.attempt, silent_ms: silentMs });
      this.session.progress.emit({ type: 'attempt.stalled', task: report.taskId, attempt: report.attempt, silentMs }, `… ${report.taskId} a${report.attempt} stalled on its worker: no progress for ${Math.round(silentMs / 1000)}s`);
    }
    if (report.kind === 'retrying' && attempt && !this.reports.seqs.has(report.seq)) {
      // A rate limit the CLI retries itself, on its worker: told live and recorded as the writer's own
      // watchdog records it (once an episode: the worker reports each episode once).
      const retry = retryOf(report.body);
      const input = { taskId: report.taskId, attempt: report.attempt, agent: attempt.agent, worker: this.workerOf(report.taskId, report.attempt) };
      tellRetry(this.session, input, retry);
      // Committed, not only appended: the machine takes it (the agent's lanes halve, a back-off starts).
      applyReportFact(this.reports, this.session.events.commit({ ...retryingEvent(input, retry), report: report.seq }));
    }
    if (report.kind === 'finished') this.end(key, { kind: 'finished', report });
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

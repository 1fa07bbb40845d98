// A run as one OpenTelemetry trace, from its log alone (the GenAI semantic conventions): the run an
// `invoke_workflow` span; each stage a span under it (the plan's an operation `plan`); each attempt an
// `invoke_agent` span under its stage (agent, provider, model, tokens, cost, outcome, worker, task);
// each verify gate an `execute_tool` span; fix loops, throttling, budget and quota decisions,
// cancels and resumes as span events. Ids derive from the run's id and what each span is, so that a
// resumed run continues the same trace and an export after the fact gives the same ids. No prompt,
// agent text or file content goes into a span unless `content` says so.
import { createHash } from 'node:crypto';
import type { TeamEvent } from '../../log/schema.js';
import { parseLogTime } from '../../log/time.js';
import { REVIEWER_ROLES } from '../../../machines/routing.js';

export type SpanValue = string | number | boolean;

export interface TraceSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** `client` for a call to an agent or a tool, `internal` for the run and its stages. */
  kind: 'internal' | 'client';
  startMs: number;
  endMs: number;
  attributes: Record<string, SpanValue>;
  events: Array<{ name: string; atMs: number; attributes: Record<string, SpanValue> }>;
  status: 'ok' | 'error' | 'unset';
}

export interface TraceOptions {
  /** Capture content (the run's task, the agents' evidence), as OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT asks. */
  content: boolean;
}

// The GenAI provider of each built-in CLI's API (gen_ai.provider.name); other agents name none.
const PROVIDERS: Record<string, string> = { claude: 'anthropic', codex: 'openai', gemini: 'gcp.gemini' };

// The trace id of a run: 16 bytes of its id's hash.
export function traceIdOf(runId: string): string {
  return createHash('sha256').update(`teamline trace ${runId}`).digest('hex').slice(0, 32);
}

// A span's id: 8 bytes of the hash of its run and what it is (`run`, `stage:…`, `attempt:…`, `gate:…`).
export function spanIdOf(runId: string, key: string): string {
  return createHash('sha256').update(`teamline span ${runId} ${key}`).digest('hex').slice(0, 16);
}

// The run's spans, parents before their children.
export function traceOf(runId: string, events: readonly TeamEvent[], options: TraceOptions): TraceSpan[] {
  const trace = new TraceBuilder(runId, options);
  for (const e of events) trace.add(e);
  return trace.finish();
}

// A run's trace built one event at a time: `add` tells which spans the event ended (a live export
// sends each then, once); `finish` ends what is still open where the log ends (a trace after the fact).
export class TraceBuilder {
  private readonly traceId: string;
  private readonly root: TraceSpan;
  private readonly spans: TraceSpan[];
  /** Stages by their key (a resume that enters a stage again continues its span), the one open, and each stage's last. */
  private readonly stages = new Map<string, TraceSpan>();
  private stage: TraceSpan | undefined;
  private readonly stageOf = new Map<string, TraceSpan>();
  private readonly attempts = new Map<string, TraceSpan>();
  private lastAt: number | undefined;
  private latest = Number.NEGATIVE_INFINITY;
  private startedAt: number | undefined;
  private ended: string | undefined;

  constructor(
    private readonly runId: string,
    private readonly options: TraceOptions,
  ) {
    this.traceId = traceIdOf(runId);
    this.root = this.span('run', 'invoke_workflow teamline', 'internal', Number.NaN);
    this.root.attributes = { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.agent.name': 'teamline', 'teamline.run.id': runId };
    this.spans = [this.root];
  }

  private span(key: string, name: string, kind: TraceSpan['kind'], startMs: number, parent?: string): TraceSpan {
    return {
      name,
      traceId: this.traceId,
      spanId: spanIdOf(this.runId, key),
      ...(parent !== undefined && { parentSpanId: parent }),
      kind,
      startMs,
      // Not ended yet: set by its end's event, else where the log ends.
      endMs: Number.NaN,
      attributes: {},
      events: [],
      status: 'unset',
    };
  }

  // Takes the log's next event; returns the spans it ended (the run's end ends every span still open).
  add(e: TeamEvent): TraceSpan[] {
    const t = parseLogTime(e.at);
    const root = this.root;
    this.lastAt = t;
    this.latest = Math.max(this.latest, t);
    const endAt = (s: TraceSpan) => (s.endMs = Number.isNaN(s.endMs) ? t : Math.max(s.endMs, t));
    switch (e.event) {
      case 'run_started':
        this.startedAt ??= t;
        root.attributes['teamline.run.mode'] = e.mode;
        if (this.options.content && 'task' in e && typeof e.task === 'string') root.attributes['teamline.run.task'] = e.task;
        return [];
      case 'stage_entered': {
        const key = `stage:${e.stage}:${e.iteration}:${e.loop}`;
        let s = this.stages.get(key);
        if (!s) {
          s = this.span(key, e.stage, 'internal', t, root.spanId);
          s.attributes = { 'teamline.stage': e.stage, 'teamline.iteration': e.iteration, 'teamline.fix_loop': e.loop, ...(e.stage === 'team-plan' && { 'gen_ai.operation.name': 'plan' }) };
          this.stages.set(key, s);
          this.spans.push(s);
        }
        this.stage = s;
        this.stageOf.set(e.stage, s);
        return [];
      }
      case 'stage_completed':
      case 'stage_skipped': {
        const s = this.stageOf.get(e.stage);
        if (!s) return [];
        endAt(s);
        s.status = 'ok';
        return [s];
      }
      case 'task_started': {
        const key = `attempt:${e.task_id}#${e.attempt}`;
        if (this.attempts.has(key)) return [];
        const parent = this.stageOf.get(e.stage) ?? this.stage ?? root;
        const a = this.span(key, `invoke_agent ${e.agent}`, 'client', t, parent.spanId);
        a.attributes = {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': e.agent,
          ...(PROVIDERS[e.agent] !== undefined && { 'gen_ai.provider.name': PROVIDERS[e.agent]! }),
          'teamline.task.id': e.task_id,
          'teamline.attempt': e.attempt,
          'teamline.stage': e.stage,
          ...(reviewerOf(e.task_id) !== undefined && { 'teamline.role': reviewerOf(e.task_id)! }),
        };
        this.attempts.set(key, a);
        this.spans.push(a);
        return [];
      }
      case 'task_finished': {
        const a = this.attempts.get(`attempt:${e.task_id}#${e.attempt}`);
        if (!a) return [];
        endAt(a);
        a.attributes['teamline.outcome'] = e.status;
        a.status = e.status === 'completed' ? 'ok' : e.status === 'failed' ? 'error' : 'unset';
        if (this.options.content && e.evidence) a.attributes['teamline.evidence'] = e.evidence;
        return [a];
      }
      case 'attempt_spawned': {
        const a = this.attempts.get(`attempt:${e.task_id}#${e.attempt}`);
        if (a) a.attributes['teamline.worker'] = e.worker;
        return [];
      }
      case 'attempt_taken': {
        const a = this.attempts.get(`attempt:${e.task_id}#${e.attempt}`);
        if (a) Object.assign(a.attributes, { 'teamline.worker': e.worker, 'teamline.team_worker': e.worker_id, 'host.name': e.host });
        return [];
      }
      case 'attempt_usage': {
        const a = this.attempts.get(`attempt:${e.task_id}#${e.attempt}`);
        if (!a) return [];
        if (e.session_id) a.attributes['gen_ai.conversation.id'] = e.session_id;
        if (e.tokens) {
          add(a.attributes, 'gen_ai.usage.input_tokens', e.tokens.input);
          add(a.attributes, 'gen_ai.usage.output_tokens', e.tokens.output);
          if (e.tokens.cached) add(a.attributes, 'gen_ai.usage.cache_read.input_tokens', e.tokens.cached);
        }
        if (e.cost_usd !== undefined) add(a.attributes, 'teamline.cost_usd', e.cost_usd);
        return [];
      }
      case 'attempt_stalled':
      case 'attempt_throttled':
      case 'attempt_retrying':
      case 'attempt_stopping': {
        const a = this.attempts.get(`attempt:${e.task_id}#${e.attempt}`);
        const facts: Record<string, SpanValue> = {};
        if (e.event === 'attempt_stalled') facts['teamline.silent_ms'] = e.silent_ms;
        if (e.event === 'attempt_stopping') facts['teamline.by'] = e.by;
        (a ?? root).events.push({ name: e.event, atMs: t, attributes: facts });
        return [];
      }
      case 'gates_result': {
        const parent = this.stage ?? root;
        return e.gates.map((gate, i) => {
          const g = this.span(`gate:${e.iteration}:${e.pass}:${i}`, 'execute_tool gate', 'client', t - Math.max(0, Math.round(gate.durationMs)), parent.spanId);
          g.endMs = t;
          g.attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'gate', 'gen_ai.tool.type': 'extension', 'teamline.gate.command': gate.command, 'teamline.gate.timed_out': gate.timedOut, ...(gate.exitCode !== null && { 'process.exit.code': gate.exitCode }) };
          g.status = gate.exitCode === 0 && !gate.timedOut ? 'ok' : 'error';
          this.spans.push(g);
          return g;
        });
      }
      case 'fix_loop_started':
      case 'budget_exceeded':
      case 'quota_reached':
      case 'quota_cleared':
      case 'budget_raised':
      case 'cancel_requested':
      case 'run_resumed':
      case 'iteration_started':
        root.events.push({ name: e.event, atMs: t, attributes: e.event === 'cancel_requested' ? { 'teamline.by': e.by, 'teamline.force': e.force } : {} });
        return [];
      case 'run_stopped':
        // Stopped for a decision: a resume goes on with the same spans.
        this.ended = e.event;
        return [];
      case 'run_completed':
      case 'run_failed':
      case 'run_cancelled': {
        this.ended = e.event;
        const open = this.spans.filter((s) => Number.isNaN(s.endMs));
        this.finish();
        return open;
      }
      default:
        return [];
    }
  }

  // Every span, parents before their children; what never ended in the log (a stopped run, one
  // still going) ends where the log does.
  finish(): TraceSpan[] {
    const lastAt = this.lastAt ?? 0;
    const root = this.root;
    root.startMs = this.startedAt ?? lastAt;
    root.endMs = Math.max(root.startMs, this.latest);
    for (const s of this.spans) if (Number.isNaN(s.endMs)) s.endMs = Math.max(s.startMs, lastAt);
    const ended = this.ended;
    root.attributes['teamline.run.status'] = ended === undefined ? 'running' : ended.slice('run_'.length);
    root.status = ended === 'run_completed' ? 'ok' : ended === 'run_failed' ? 'error' : 'unset';
    return this.spans;
  }
}

// The reviewer role of a verify reviewer's attempt (`verify-1.security-reviewer`): an agent the run
// invokes, so an invoke_agent span with its tokens, its role told.
function reviewerOf(taskId: string): string | undefined {
  return REVIEWER_ROLES.find((role) => taskId.endsWith(`.${role}`));
}

function add(attributes: Record<string, SpanValue>, name: string, n: number): void {
  attributes[name] = ((attributes[name] as number | undefined) ?? 0) + n;
}

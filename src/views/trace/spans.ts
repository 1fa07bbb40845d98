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
  const traceId = traceIdOf(runId);
  const at = (e: TeamEvent) => parseLogTime(e.at);
  const lastAt = events.length > 0 ? at(events[events.length - 1]!) : 0;
  const span = (key: string, name: string, kind: TraceSpan['kind'], startMs: number, parent?: string): TraceSpan => ({
    name,
    traceId,
    spanId: spanIdOf(runId, key),
    ...(parent !== undefined && { parentSpanId: parent }),
    kind,
    startMs,
    // Not ended yet: set by its end's event, else where the log ends.
    endMs: Number.NaN,
    attributes: {},
    events: [],
    status: 'unset',
  });
  const started = events.find((e) => e.event === 'run_started');
  const root = span('run', 'invoke_workflow teamline', 'internal', started ? at(started) : lastAt);
  root.endMs = root.startMs;
  root.attributes = { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.agent.name': 'teamline', 'teamline.run.id': runId };
  if (started?.event === 'run_started') {
    root.attributes['teamline.run.mode'] = started.mode;
    if (options.content && 'task' in started && typeof started.task === 'string') root.attributes['teamline.run.task'] = started.task;
  }
  const spans: TraceSpan[] = [root];
  // Stages by their key (a resume that enters a stage again continues its span), and the one open.
  const stages = new Map<string, TraceSpan>();
  let stage: TraceSpan | undefined;
  const stageOf = new Map<string, TraceSpan>();
  const attempts = new Map<string, TraceSpan>();
  let ended: string | undefined;
  for (const e of events) {
    const t = at(e);
    root.endMs = Math.max(root.endMs, t);
    switch (e.event) {
      case 'stage_entered': {
        const key = `stage:${e.stage}:${e.iteration}:${e.loop}`;
        let s = stages.get(key);
        if (!s) {
          s = span(key, e.stage, 'internal', t, root.spanId);
          s.attributes = { 'teamline.stage': e.stage, 'teamline.iteration': e.iteration, 'teamline.fix_loop': e.loop, ...(e.stage === 'team-plan' && { 'gen_ai.operation.name': 'plan' }) };
          stages.set(key, s);
          spans.push(s);
        }
        stage = s;
        stageOf.set(e.stage, s);
        break;
      }
      case 'stage_completed':
      case 'stage_skipped': {
        const s = stageOf.get(e.stage);
        if (s) {
          s.endMs = Number.isNaN(s.endMs) ? t : Math.max(s.endMs, t);
          s.status = 'ok';
        }
        break;
      }
      case 'task_started': {
        const key = `attempt:${e.task_id}#${e.attempt}`;
        if (attempts.has(key)) break;
        const parent = stageOf.get(e.stage) ?? stage ?? root;
        const a = span(key, `invoke_agent ${e.agent}`, 'client', t, parent.spanId);
        a.attributes = {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': e.agent,
          ...(PROVIDERS[e.agent] !== undefined && { 'gen_ai.provider.name': PROVIDERS[e.agent]! }),
          'teamline.task.id': e.task_id,
          'teamline.attempt': e.attempt,
          'teamline.stage': e.stage,
        };
        attempts.set(key, a);
        spans.push(a);
        break;
      }
      case 'task_finished': {
        const a = attempts.get(`attempt:${e.task_id}#${e.attempt}`);
        if (!a) break;
        a.endMs = Number.isNaN(a.endMs) ? t : Math.max(a.endMs, t);
        a.attributes['teamline.outcome'] = e.status;
        a.status = e.status === 'completed' ? 'ok' : e.status === 'failed' ? 'error' : 'unset';
        if (options.content && e.evidence) a.attributes['teamline.evidence'] = e.evidence;
        break;
      }
      case 'attempt_spawned': {
        const a = attempts.get(`attempt:${e.task_id}#${e.attempt}`);
        if (a) a.attributes['teamline.worker'] = e.worker;
        break;
      }
      case 'attempt_taken': {
        const a = attempts.get(`attempt:${e.task_id}#${e.attempt}`);
        if (a) Object.assign(a.attributes, { 'teamline.worker': e.worker, 'teamline.team_worker': e.worker_id, 'host.name': e.host });
        break;
      }
      case 'attempt_usage': {
        const a = attempts.get(`attempt:${e.task_id}#${e.attempt}`);
        if (!a) break;
        if (e.session_id) a.attributes['gen_ai.conversation.id'] = e.session_id;
        if (e.tokens) {
          add(a.attributes, 'gen_ai.usage.input_tokens', e.tokens.input);
          add(a.attributes, 'gen_ai.usage.output_tokens', e.tokens.output);
          if (e.tokens.cached) add(a.attributes, 'gen_ai.usage.cache_read.input_tokens', e.tokens.cached);
        }
        if (e.cost_usd !== undefined) add(a.attributes, 'teamline.cost_usd', e.cost_usd);
        break;
      }
      case 'attempt_stalled':
      case 'attempt_throttled':
      case 'attempt_retrying':
      case 'attempt_stopping': {
        const a = attempts.get(`attempt:${e.task_id}#${e.attempt}`);
        const facts: Record<string, SpanValue> = {};
        if (e.event === 'attempt_stalled') facts['teamline.silent_ms'] = e.silent_ms;
        if (e.event === 'attempt_stopping') facts['teamline.by'] = e.by;
        (a ?? root).events.push({ name: e.event, atMs: t, attributes: facts });
        break;
      }
      case 'gates_result': {
        const parent = stage ?? root;
        e.gates.forEach((gate, i) => {
          const g = span(`gate:${e.iteration}:${e.pass}:${i}`, 'execute_tool gate', 'client', t - Math.max(0, Math.round(gate.durationMs)), parent.spanId);
          g.endMs = t;
          g.attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'gate', 'gen_ai.tool.type': 'extension', 'teamline.gate.command': gate.command, 'teamline.gate.timed_out': gate.timedOut, ...(gate.exitCode !== null && { 'process.exit.code': gate.exitCode }) };
          g.status = gate.exitCode === 0 && !gate.timedOut ? 'ok' : 'error';
          spans.push(g);
        });
        break;
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
        break;
      case 'run_completed':
      case 'run_failed':
      case 'run_cancelled':
      case 'run_stopped':
        ended = e.event;
        break;
      default:
        break;
    }
  }
  // What never ended in the log (a stopped run, one still going) ends where the log does.
  for (const s of spans) if (Number.isNaN(s.endMs)) s.endMs = Math.max(s.startMs, lastAt);
  root.attributes['teamline.run.status'] = ended === undefined ? 'running' : ended.slice('run_'.length);
  root.status = ended === 'run_completed' ? 'ok' : ended === 'run_failed' ? 'error' : 'unset';
  return spans;
}

function add(attributes: Record<string, SpanValue>, name: string, n: number): void {
  attributes[name] = ((attributes[name] as number | undefined) ?? 0) + n;
}

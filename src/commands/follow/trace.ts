// `team trace [--run ID] [--endpoint URL] [--store URL]`: a run as one OpenTelemetry trace, from its
// log alone (src/views/trace/): sent to an OTLP/HTTP receiver when --endpoint or the standard OTEL_*
// variables name one, else printed as JSON. A running run's trace ends where its log does; the same
// run traced again gives the same ids.
import { validateId } from '../../log/guards.js';
import { openStore } from '../../store/open.js';
import { withStore } from '../../store/types.js';
import { UsageError } from '../../sys/errors.js';
import { traceOf, type TraceSpan } from '../../views/trace/spans.js';
import { capturesContent } from '../../views/trace/target.js';
import { optionalString, parseFlags } from '../args/args.js';
import { FLAGS } from '../args/flags.js';
import { openProject } from '../args/project.js';
import { readVersion } from '../../sys/version.js';

export async function traceCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const args = parseFlags(argv, FLAGS.trace, 'team trace');
  const project = openProject(args, { readsStore: true, readOnly: true });
  const runId = optionalString(args, 'run');
  if (runId !== undefined) validateId(runId, '--run');
  const endpoint = optionalString(args, 'endpoint');
  if (endpoint !== undefined) checkEndpoint(endpoint);
  // What the GenAI conventions call content (the run's task, the agents' words) only when asked.
  const content = capturesContent(env);
  const store = await openStore(project, optionalString(args, 'store'), 'trace');
  const { id, spans } = await withStore(store, async () => {
    const id = await store.pickRun(runId);
    const read = await store.read(id);
    return { id, spans: traceOf(id, read.events, { content }) };
  });
  const target = endpoint ?? (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (!target) {
    process.stdout.write(`${JSON.stringify(spans.map(printable), null, 2)}\n`);
    return 0;
  }
  const { exportTrace } = await import('../../views/trace/export.js');
  try {
    const { protocol } = await exportTrace(spans, { ...(endpoint !== undefined && { endpoint }), version: readVersion(), env });
    process.stdout.write(`team trace: ${spans.length} spans of run ${id} (trace ${spans[0]!.traceId}) sent to ${target} (${protocol})\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`team trace: the receiver at ${target} did not take the trace of run ${id}: ${(error as Error).message}\n`);
    return 1;
  }
}

// An http(s) URL with no credentials in it.
function checkEndpoint(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--endpoint: "${url}" is not a URL (e.g. http://127.0.0.1:4318)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`--endpoint: ${parsed.protocol} is not http: or https: (OTLP/HTTP)`);
  if (parsed.username || parsed.password) throw new UsageError('--endpoint: a URL with credentials in it is refused; give headers through OTEL_EXPORTER_OTLP_HEADERS');
}

// A span as printed: its times as ISO strings.
function printable(span: TraceSpan) {
  const { startMs, endMs, events, ...rest } = span;
  return { ...rest, start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString(), events: events.map(({ atMs, ...e }) => ({ ...e, at: new Date(atMs).toISOString() })) };
}

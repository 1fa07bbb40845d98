// Sends a run's trace (spans.ts) to an OTLP receiver through the official OpenTelemetry JS exporters:
// OTLP/HTTP with protobuf (the standard's default) or JSON, as OTEL_EXPORTER_OTLP_TRACES_PROTOCOL /
// OTEL_EXPORTER_OTLP_PROTOCOL say; where to, timeout and headers as the standard OTEL_* variables
// say, unless `endpoint` names the receiver. Loaded only when spans are sent (`team trace`, a run's
// live export): the exporters are left out of the bundle, and loaded with this file.
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import type { HrTime } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { TraceSpan } from './spans.js';
import { protocolOf, type Protocol } from './target.js';

export interface ExportAsk {
  /** The receiver's base URL (as OTEL_EXPORTER_OTLP_ENDPOINT: /v1/traces is added); else the OTEL_* variables. */
  endpoint?: string;
  /** The version teamline reports as its instrumentation scope's and service's. */
  version: string;
  env: NodeJS.ProcessEnv;
}

// An exporter of the run's spans: `send` resolves once the receiver took them, rejects with why it did not.
export interface SpanSender {
  protocol: Protocol;
  send(spans: readonly TraceSpan[]): Promise<void>;
  shutdown(): Promise<void>;
}

export function openSender(ask: ExportAsk & { timeoutMs?: number }): SpanSender {
  const protocol = protocolOf(ask.env);
  const config = {
    ...(ask.endpoint !== undefined && { url: `${ask.endpoint.replace(/\/+$/, '')}/v1/traces` }),
    ...(ask.timeoutMs !== undefined && { timeoutMillis: ask.timeoutMs }),
  };
  const exporter: SpanExporter = protocol === 'http/json' ? new JsonExporter(config) : new ProtobufExporter(config);
  const resource = resourceFromAttributes({ 'service.name': 'teamline', 'service.version': ask.version });
  const scope = { name: 'teamline', version: ask.version };
  return {
    protocol,
    send: (spans) =>
      new Promise<void>((resolve, reject) => {
        exporter.export(
          spans.map((span) => toReadable(span, resource, scope)),
          (result) => (result.code === 0 ? resolve() : reject(result.error ?? new Error('the receiver did not take the spans'))),
        );
      }),
    shutdown: () => exporter.shutdown().catch(() => undefined),
  };
}

// Exports the spans at once (`team trace`); resolves once the receiver took them, rejects with why it did not.
export async function exportTrace(spans: TraceSpan[], ask: ExportAsk): Promise<{ protocol: Protocol }> {
  const sender = openSender(ask);
  try {
    await sender.send(spans);
  } finally {
    await sender.shutdown();
  }
  return { protocol: sender.protocol };
}

function toReadable(span: TraceSpan, resource: ReadableSpan['resource'], scope: ReadableSpan['instrumentationScope']): ReadableSpan {
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED };
  return {
    name: span.name,
    kind: span.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => context,
    ...(span.parentSpanId !== undefined && { parentSpanContext: { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED } }),
    startTime: hrTime(span.startMs),
    endTime: hrTime(span.endMs),
    status: { code: span.status === 'ok' ? SpanStatusCode.OK : span.status === 'error' ? SpanStatusCode.ERROR : SpanStatusCode.UNSET },
    attributes: span.attributes,
    links: [],
    events: span.events.map((e) => ({ name: e.name, time: hrTime(e.atMs), attributes: e.attributes })),
    duration: hrTime(span.endMs - span.startMs),
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

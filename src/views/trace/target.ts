// Where a run's spans go and how, from `team.telemetry` and the standard OTEL_* variables. Light: it
// loads no exporter (export.ts does, and is loaded only when spans are sent).
import type { TeamConfig } from '../../../config/schema.js';

export type Protocol = 'http/protobuf' | 'http/json';

/** How long a live export waits for a receiver when no OTEL_* variable sets a timeout: at its end a run waits no longer. */
export const LIVE_TIMEOUT_MS = 2_000;

// The protocol the OTEL_* variables name (the standard's default: http/protobuf); another one is refused.
export function protocolOf(env: NodeJS.ProcessEnv): Protocol {
  const asked = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (asked === 'http/protobuf' || asked === 'http/json') return asked;
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL is "${asked}": teamline sends http/protobuf or http/json (grpc is not supported)`);
}

// Whether the GenAI conventions' content (the run's task, the agents' words) goes into spans.
export function capturesContent(env: NodeJS.ProcessEnv): boolean {
  return /^(1|true)$/i.test(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? '');
}

export interface LiveTarget {
  /** The receiver's base URL when the config names it; else the exporter reads the OTEL_* variables. */
  endpoint?: string;
  /** The receiver as a person is told of it (no credentials, no query). */
  shown: string;
  /** The variables the exporter reads (the config's protocol set in them). */
  env: NodeJS.ProcessEnv;
  content: boolean;
  timeoutMs?: number;
}

// Where a run's spans go while it runs, or undefined when nothing asks for a live export (or something turns it off).
export function liveTarget(telemetry: TeamConfig['team']['telemetry'], env: NodeJS.ProcessEnv): LiveTarget | undefined {
  if (!telemetry.enabled || /^true$/i.test(env.OTEL_SDK_DISABLED ?? '')) return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim());
  if (exporters.includes('none')) return undefined;
  const fromEnv = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url = telemetry.endpoint ?? fromEnv;
  if (!url) return undefined;
  return {
    ...(telemetry.endpoint !== undefined && { endpoint: telemetry.endpoint }),
    shown: shownUrl(url),
    env: telemetry.protocol === undefined ? env : { ...env, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: telemetry.protocol },
    content: telemetry.content || capturesContent(env),
    ...(!env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT && !env.OTEL_EXPORTER_OTLP_TIMEOUT && { timeoutMs: LIVE_TIMEOUT_MS }),
  };
}

// A URL as it may be shown: its origin and path, never a password or a query's token.
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'an endpoint that is not a URL';
  }
}

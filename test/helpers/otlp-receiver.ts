// An OTLP/HTTP receiver on 127.0.0.1 for the trace tests. No OpenTelemetry Collector is installable
// here: this plain HTTP server keeps what it is sent, as a collector's OTLP/HTTP receiver takes it
// (POST /v1/traces, JSON or protobuf), and answers as one does — or refuses (`refuse`: that status),
// or never answers (`hang`), as a receiver that is down or stuck does.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  type: string;
  body: Buffer;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startReceiver(options: { refuse?: number; hang?: boolean; onRequest?: (received: Received) => void } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const got = { path: req.url ?? '', type: String(req.headers['content-type']), body: Buffer.concat(chunks) };
      received.push(got);
      options.onRequest?.(got);
      if (options.hang) return;
      if (options.refuse) return void res.writeHead(options.refuse, { 'content-type': 'application/json' }).end('{"code":13,"message":"refused"}');
      const json = got.type.includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  events?: Array<{ name: string }>;
}

// The spans of OTLP/JSON requests, in the order they came.
export function spansOf(received: Received[]): OtlpSpan[] {
  return received.flatMap((r) => (JSON.parse(r.body.toString('utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
}

// An attribute's value, whatever its OTLP type.
export function attr(span: OtlpSpan, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
}

// A model server of its own on 127.0.0.1 that admits `capacity` turns at once, each held for
// `holdMs` (as a model takes its time), and answers 429 with a retry-after beyond that (issue 29):
// the fan-out bench and the rate-limit tests run against it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RateServer {
  url: string;
  /** Turns answered 200, and refused with 429. */
  served: number;
  refused: number;
  /** The most turns held at once. */
  peak: number;
  close(): Promise<void>;
}

// `holdUntilRefused`: a turn whose URL names a task matching it is held past holdMs until the server
// has refused one, so that a test sees the limit however slowly a loaded machine starts its workers
// (the workers held keep their lanes: the later ones are refused at once).
export async function startRateServer(options: { capacity: number; holdMs: number; retryAfterS: number; holdUntilRefused?: RegExp }): Promise<RateServer> {
  let active = 0;
  const state = { served: 0, refused: 0, peak: 0 };
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (active >= options.capacity) {
        state.refused += 1;
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(options.retryAfterS) });
        response.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Number of concurrent connections has exceeded your rate limit' } }));
        return;
      }
      active += 1;
      state.peak = Math.max(state.peak, active);
      const task = new URL(request.url ?? '/', 'http://x').searchParams.get('task') ?? '';
      const waits = options.holdUntilRefused?.test(task) === true;
      const release = () => {
        if (waits && state.refused === 0) return void setTimeout(release, 25);
        active -= 1;
        state.served += 1;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"ok":true}');
      };
      setTimeout(release, options.holdMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get served() {
      return state.served;
    },
    get refused() {
      return state.refused;
    },
    get peak() {
      return state.peak;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

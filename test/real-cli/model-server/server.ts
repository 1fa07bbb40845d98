// The project's scripted model server: node:http on 127.0.0.1 (a free port), speaking the four
// wire protocols the real CLIs use. The API key picks the behaviour: OK_KEY answers from the
// scenario, HANG_KEY never answers, LIMIT_KEY and OVERLOAD_KEY are refused as past a rate limit or
// overloaded, any other key is refused as the real API refuses it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { anthropic } from './anthropic.js';
import { chat } from './chat.js';
import { gemini } from './gemini.js';
import type { Body, Protocol } from './protocol.js';
import { responses } from './responses.js';
import { readSlash, slashStep } from './slash.js';
import { toolNamesOf } from './team-tools.js';
import { cachedOf, decide, findPrompt, strings, type ModelCall } from './turn.js';

export const OK_KEY = 'teamline-test-key';
export const HANG_KEY = 'teamline-hang-key';
// Past the rate limit: every call is answered 429 with `retry-after: 1` (issue 29); OVERLOAD_KEY: 529 (gemini: 503).
export const LIMIT_KEY = 'teamline-limit-key';
export const OVERLOAD_KEY = 'teamline-overload-key';
// Past the account's quota (a plan's usage limit) until QUOTA_RESETS_AT: no wait of a minute brings it back.
export const QUOTA_KEY = 'teamline-quota-key';
export const QUOTA_RESETS_AT = Math.floor(Date.parse('2031-01-01T15:00:00Z') / 1000);

export interface ModelServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Every model call so far, oldest first. */
  calls: ModelCall[];
  /** Resolves at the first call that matches (already made or still to come). */
  waitForCall(match: (call: ModelCall) => boolean): Promise<ModelCall>;
  /** Holds the answer to the next call that matches until `release` (the CLI waits for its model meanwhile). */
  hold(match: (call: ModelCall) => boolean): { reached: Promise<ModelCall>; release(): void };
  close(): Promise<void>;
}

function protocolOf(path: string): Protocol | undefined {
  if (path.endsWith('/messages')) return anthropic;
  if (path.endsWith('/responses')) return responses;
  if (path.endsWith('/chat/completions')) return chat;
  if (/\/models\/[^/]+:\w+$/.test(path)) return gemini;
  return undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// Starts a server whose scripted answers name `cli` in the files they write.
export async function startModelServer(cli: string): Promise<ModelServer> {
  const calls: ModelCall[] = [];
  const waiters: Array<{ match: (call: ModelCall) => boolean; resolve: (call: ModelCall) => void }> = [];
  const sockets = new Set<Socket>();
  const holds: Array<{ match: (call: ModelCall) => boolean; reach: (call: ModelCall) => void; released: Promise<void> }> = [];
  const record = (call: ModelCall) => {
    calls.push(call);
    for (const waiter of waiters.filter((w) => w.match(call))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(call);
    }
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const text = await readBody(req);
    const protocol = protocolOf(url.pathname);
    if (req.method !== 'POST' || !protocol) {
      res.writeHead(req.method === 'POST' ? 404 : 200).end();
      return;
    }
    const body = (text ? JSON.parse(text) : {}) as Body;
    const key = protocol.key(req, url);
    const facts = findPrompt(body);
    const { outputs, hasTools } = protocol.read(body);
    const model = typeof body.model === 'string' ? body.model : /\/models\/([^/:]+):/.exec(url.pathname)?.[1];
    const seen = { api: protocol.api, key, facts, outputs, cached: 0, ...(model !== undefined && { model }) };
    if (key === HANG_KEY) return record(seen);
    if (key === LIMIT_KEY || key === OVERLOAD_KEY) {
      record(seen);
      return protocol.refuseLimit(res, key === LIMIT_KEY ? 429 : 529);
    }
    if (key === QUOTA_KEY && protocol.refuseQuota) {
      record(seen);
      return protocol.refuseQuota(res, QUOTA_RESETS_AT);
    }
    if (key !== OK_KEY) {
      record(seen);
      return protocol.rejectKey(res, key);
    }
    const slash = facts ? undefined : readSlash(strings(body));
    const step = slash && hasTools ? slashStep(slash, outputs) : decide(cli, facts, hasTools, outputs, toolNamesOf(body));
    const call: ModelCall = { api: protocol.api, key, facts, outputs, step, tools: toolNamesOf(body), cached: cachedOf(body), ...(model !== undefined && { model }) };
    record(call);
    const held = holds.find((h) => h.match(call));
    if (held) {
      holds.splice(holds.indexOf(held), 1);
      held.reach(call);
      await held.released;
    }
    protocol.answer(res, step, body, url);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `model server: ${error.message}` } }));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    waitForCall: (match) => {
      const found = calls.find(match);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
    hold: (match) => {
      let release!: () => void;
      let reach!: (call: ModelCall) => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const reached = new Promise<ModelCall>((resolve) => (reach = resolve));
      holds.push({ match, reach, released });
      return { reached, release };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// The shape every wire protocol of the model server has.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Step } from './scenario.js';

export type Body = Record<string, unknown>;

export interface Protocol {
  api: string;
  /** The API key the request carries. */
  key(req: IncomingMessage, url: URL): string;
  /** The tool outputs the CLI sent back so far, and whether the call offers tools. */
  read(body: Body): { outputs: string[]; hasTools: boolean };
  /** Answers one step (streamed when the request asked for a stream). */
  answer(res: ServerResponse, step: Step, body: Body, url: URL): void;
  /** What the real API answers to a bad key. */
  rejectKey(res: ServerResponse, key: string): void;
  /** What the real API answers past its rate limit (429) or overloaded (529), with a retry-after. */
  refuseLimit(res: ServerResponse, status: 429 | 529): void;
  /** Refuses the call as past the account's quota until `resetsAt` (seconds since the epoch), as the API says it; absent where the CLI's API has no such answer here. */
  refuseQuota?(res: ServerResponse, resetsAt: number): void;
}

// The array at `body[name]`, or an empty one.
export function arrayAt(body: unknown, name: string): Body[] {
  const value = body && typeof body === 'object' ? (body as Body)[name] : undefined;
  return Array.isArray(value) ? (value as Body[]) : [];
}

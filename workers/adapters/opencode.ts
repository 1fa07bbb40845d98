// opencode: `opencode run --format json`, the prompt piped on stdin (it becomes the message).
// Output: JSONL events {type, timestamp, sessionID, part | error}: step_start, text, tool_use,
// step_finish (cost, tokens, reason), error; newer versions end with a `done` event.
import type { AdapterInput, AgentAdapter, AgentCommand, AgentReport } from '../types.js';
import { makeAgentCommand, makeReport } from './command-line.js';
import { peekJsonString, readJsonObjects, toCount, toObject, toText, type JsonObject } from './json-objects.js';

// `opencode run` rejects permission requests unless told `--auto`; `permissionMode: "auto"`
// asks for that. Without it the project's own opencode permission config applies.
const AUTO_MODE = 'auto';

// A step that ends by calling tools is followed by another step; any other reason is final.
const TOOL_CALLS_REASON = 'tool-calls';

// Builds the run call; opencode has no turn or budget flags.
function buildOpencode(input: AdapterInput): AgentCommand {
  const { agent } = input;
  const args = ['run', '--format', 'json'];
  if (agent.model !== undefined) args.push('--model', agent.model);
  if (agent.permissionMode === AUTO_MODE) args.push('--auto');
  return makeAgentCommand(agent, 'opencode', args, input.promptFile);
}

// ok when no error event came and the run ended (a `done` event, or a final step_finish).
function parseOpencode(output: string): AgentReport {
  const events = readJsonObjects(output).filter((event) => typeof event.type === 'string' && 'sessionID' in event);
  const texts: string[] = [];
  const errors: string[] = [];
  let costUsd: number | undefined;
  let tokens: AgentReport['tokens'];
  let lastReason: string | undefined;
  let done = false;
  for (const event of events) {
    const part = toObject(event.part);
    if (event.type === 'text' && typeof part?.text === 'string') texts.push(part.text);
    if (event.type === 'error') errors.push(describeOpencodeError(toObject(event.error)));
    if (event.type === 'done') done = true;
    if (event.type === 'step_finish' && part) {
      const counts = toObject(part.tokens);
      const cache = toObject(counts?.cache);
      costUsd = (costUsd ?? 0) + toCount(part.cost);
      tokens = {
        input: (tokens?.input ?? 0) + toCount(counts?.input) + toCount(cache?.read) + toCount(cache?.write),
        output: (tokens?.output ?? 0) + toCount(counts?.output) + toCount(counts?.reasoning),
      };
      lastReason = toText(part.reason);
    }
  }
  const finished = done || (lastReason !== undefined && lastReason !== TOOL_CALLS_REASON);
  const ok = errors.length === 0 && finished;
  const error = errors.length > 0 ? errors.join('; ') : finished ? undefined : 'opencode printed no final step';
  return makeReport({
    ok,
    finalText: texts.length > 0 ? texts.join('\n') : undefined,
    sessionId: toText(events[0]?.sessionID),
    costUsd,
    tokens,
    error: ok ? undefined : error,
  });
}

// "APIError: ..." from opencode's {name, data: {message}} error shape.
function describeOpencodeError(error: JsonObject | undefined): string {
  const name = toText(error?.name) ?? 'UnknownError';
  const message = toText(toObject(error?.data)?.message);
  return message === undefined ? name : `${name}: ${message}`;
}

// The opencode adapter: a run command line in, the JSONL events out.
export const opencode: AgentAdapter = {
  name: 'opencode',
  build: buildOpencode,
  parse: parseOpencode,
  peekSessionId: (partialOutput) => peekJsonString(partialOutput, 'sessionID'),
};

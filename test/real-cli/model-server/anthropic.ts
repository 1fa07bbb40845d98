// The Anthropic Messages API as claude calls it: POST /v1/messages?beta=true with `stream: true`,
// answered by SSE (message_start, content blocks, message_delta, message_stop).
import type { ServerResponse } from 'node:http';
import type { Step } from './scenario.js';
import { arrayAt, type Body, type Protocol } from './protocol.js';
import { cachedOf, makeId, sendEvent, sendJson, startSse, textOf, USAGE } from './turn.js';

// claude's own tools: Write {file_path, content} and Bash {command, description}.
function toolUse(step: Step): { name: string; input: Body } | undefined {
  if (step.kind === 'write') return { name: 'Write', input: { file_path: step.path, content: step.content } };
  if (step.kind === 'run') return { name: 'Bash', input: { command: step.command, description: 'Check the files' } };
  if (step.kind === 'tool') return { name: step.name, input: step.args };
  return undefined;
}

function answer(res: ServerResponse, step: Step, body: Body): void {
  const tool = toolUse(step);
  const block = tool ? { type: 'tool_use', id: makeId('toolu_'), name: tool.name, input: {} } : { type: 'text', text: '' };
  const stopReason = tool ? 'tool_use' : 'end_turn';
  // The API's input_tokens leave out the cache's: the three add up to USAGE.input.
  const cached = cachedOf(body);
  const usage = { input_tokens: USAGE.input - cached, output_tokens: USAGE.output, cache_creation_input_tokens: 0, cache_read_input_tokens: cached };
  const message = { id: makeId('msg_'), type: 'message', role: 'assistant', model: String(body.model), content: [] as Body[], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } };
  if (body.stream !== true) {
    const content = tool ? [{ ...block, input: tool.input }] : [{ type: 'text', text: step.kind === 'final' ? step.text : '' }];
    sendJson(res, 200, { ...message, content, stop_reason: stopReason, usage });
    return;
  }
  startSse(res);
  sendEvent(res, { type: 'message_start', message }, 'message_start');
  sendEvent(res, { type: 'content_block_start', index: 0, content_block: block }, 'content_block_start');
  const delta = tool ? { type: 'input_json_delta', partial_json: JSON.stringify(tool.input) } : { type: 'text_delta', text: step.kind === 'final' ? step.text : '' };
  sendEvent(res, { type: 'content_block_delta', index: 0, delta }, 'content_block_delta');
  sendEvent(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
  sendEvent(res, { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: USAGE.output } }, 'message_delta');
  sendEvent(res, { type: 'message_stop' }, 'message_stop');
  res.end();
}

// The Messages protocol.
export const anthropic: Protocol = {
  api: 'anthropic-messages',
  key: (req) => String(req.headers['x-api-key'] ?? String(req.headers.authorization ?? '').replace(/^Bearer /, '')),
  read(body) {
    const outputs = arrayAt(body, 'messages')
      .flatMap((message) => arrayAt(message, 'content'))
      .filter((part) => part.type === 'tool_result')
      .map((part) => textOf(part.content));
    return { outputs, hasTools: arrayAt(body, 'tools').some((tool) => tool.name === 'Write') };
  },
  answer: (res, step, body) => answer(res, step, body),
  rejectKey: (res) =>
    sendJson(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' }, request_id: makeId('req_') }, { 'request-id': makeId('req_') }),
  refuseLimit: (res, status) =>
    sendJson(
      res,
      status,
      { type: 'error', error: status === 429 ? { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } : { type: 'overloaded_error', message: 'Overloaded' }, request_id: makeId('req_') },
      { 'request-id': makeId('req_'), 'retry-after': '1', 'x-should-retry': 'true' },
    ),
  // A plan's session limit, as the API refuses it: the unified rate-limit headers say rejected, for
  // the five-hour window, until the reset.
  refuseQuota: (res, resetsAt) =>
    sendJson(res, 429, { type: 'error', error: { type: 'rate_limit_error', message: 'This request would exceed your account\'s rate limit. Please try again later.' }, request_id: makeId('req_') }, {
      'request-id': makeId('req_'),
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(resetsAt),
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'x-should-retry': 'false',
    }),
};

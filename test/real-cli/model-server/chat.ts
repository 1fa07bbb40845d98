// OpenAI chat completions as opencode's @ai-sdk/openai-compatible provider calls them:
// POST /v1/chat/completions with `stream: true`, answered by SSE chunks and `data: [DONE]`.
import type { ServerResponse } from 'node:http';
import type { Step } from './scenario.js';
import { arrayAt, type Body, type Protocol } from './protocol.js';
import { cachedOf, makeId, sendEvent, sendJson, startSse, textOf, USAGE } from './turn.js';

// opencode's own tools: write {filePath, content} and bash {command, description}.
function toolCall(step: Step): { name: string; args: Body } | undefined {
  if (step.kind === 'write') return { name: 'write', args: { filePath: step.path, content: step.content } };
  if (step.kind === 'run') return { name: 'bash', args: { command: step.command, description: 'Check the files' } };
  if (step.kind === 'tool') return { name: step.name, args: step.args };
  return undefined;
}

function answer(res: ServerResponse, step: Step, body: Body): void {
  const tool = toolCall(step);
  const base = { id: makeId('chatcmpl-'), object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: String(body.model) };
  const usage = { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output, prompt_tokens_details: { cached_tokens: cachedOf(body) } };
  const text = step.kind === 'final' ? step.text : '';
  const toolCalls = tool ? [{ index: 0, id: makeId('call_'), type: 'function', function: { name: tool.name, arguments: JSON.stringify(tool.args) } }] : undefined;
  if (body.stream !== true) {
    const message = { role: 'assistant', content: tool ? null : text, ...(toolCalls && { tool_calls: toolCalls.map(({ index: _index, ...call }) => call) }) };
    sendJson(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: tool ? 'tool_calls' : 'stop' }], usage });
    return;
  }
  startSse(res);
  const delta = tool ? { role: 'assistant', content: null, tool_calls: toolCalls } : { role: 'assistant', content: text };
  sendEvent(res, { ...base, choices: [{ index: 0, delta, finish_reason: null }] });
  sendEvent(res, { ...base, choices: [{ index: 0, delta: {}, finish_reason: tool ? 'tool_calls' : 'stop' }] });
  sendEvent(res, { ...base, choices: [], usage });
  sendEvent(res, '[DONE]');
  res.end();
}

// The chat completions protocol.
export const chat: Protocol = {
  api: 'openai-chat',
  key: (req) => String(req.headers.authorization ?? '').replace(/^Bearer /, ''),
  read(body) {
    const outputs = arrayAt(body, 'messages')
      .filter((message) => message.role === 'tool')
      .map((message) => textOf(message.content));
    return { outputs, hasTools: arrayAt(body, 'tools').length > 0 };
  },
  answer: (res, step, body) => answer(res, step, body),
  rejectKey: (res, key) =>
    sendJson(res, 401, { error: { message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }),
  refuseLimit: (res, status) =>
    sendJson(res, status, { error: { message: status === 429 ? 'Rate limit reached. Please try again in 1s.' : 'The server is overloaded.', type: status === 429 ? 'requests' : 'server_error', param: null, code: status === 429 ? 'rate_limit_exceeded' : 'server_overloaded' } }, { 'retry-after': '1', 'retry-after-ms': '200' }),
};

// The OpenAI Responses API as codex calls it (`wire_api = "responses"`): POST /v1/responses with
// `stream: true`, answered by SSE (response.created, response.output_item.done, response.completed).
import type { ServerResponse } from 'node:http';
import { relative } from 'node:path';
import type { Step } from './scenario.js';
import { arrayAt, type Body, type Protocol } from './protocol.js';
import { cachedOf, makeId, sendEvent, sendJson, startSse, textOf, USAGE } from './turn.js';

// codex's own tools: files are written by apply_patch (run through exec_command, which codex
// intercepts and applies itself), commands run by exec_command {cmd}.
function command(step: Step, cwd: string): string | undefined {
  if (step.kind === 'run') return step.command;
  if (step.kind !== 'write') return undefined;
  const lines = step.content.replace(/\n$/, '').split('\n').map((line) => `+${line}`);
  return ['apply_patch <<\'PATCH\'', '*** Begin Patch', `*** Add File: ${relative(cwd, step.path)}`, ...lines, '*** End Patch', 'PATCH'].join('\n');
}

function outputItem(step: Step, cwd: string): Body {
  // A tool of a namespace (an MCP server's) is called by its name and its namespace.
  if (step.kind === 'tool') {
    const [namespace, name] = step.name.includes('/') ? step.name.split('/') : [undefined, step.name];
    return { type: 'function_call', id: makeId('fc_'), call_id: makeId('call_'), name, ...(namespace && { namespace }), arguments: JSON.stringify(step.args) };
  }
  const cmd = command(step, cwd);
  if (cmd !== undefined) return { type: 'function_call', id: makeId('fc_'), call_id: makeId('call_'), name: 'exec_command', arguments: JSON.stringify({ cmd, workdir: cwd }) };
  const text = step.kind === 'final' ? step.text : '';
  return { type: 'message', id: makeId('msg_'), role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
}

// The working folder codex reports in its environment context, else the current one.
function cwdOf(body: Body): string {
  return /<cwd>([^<]+)<\/cwd>/.exec(textOf(body.input))?.[1] ?? process.cwd();
}

function answer(res: ServerResponse, step: Step, body: Body): void {
  const id = makeId('resp_');
  const item = outputItem(step, cwdOf(body));
  startSse(res);
  sendEvent(res, { type: 'response.created', response: { id } }, 'response.created');
  sendEvent(res, { type: 'response.output_item.added', output_index: 0, item }, 'response.output_item.added');
  sendEvent(res, { type: 'response.output_item.done', output_index: 0, item }, 'response.output_item.done');
  const usage = { input_tokens: USAGE.input, input_tokens_details: { cached_tokens: cachedOf(body) }, output_tokens: USAGE.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: USAGE.input + USAGE.output };
  sendEvent(res, { type: 'response.completed', response: { id, status: 'completed', output: [item], usage } }, 'response.completed');
  res.end();
}

// The Responses protocol.
export const responses: Protocol = {
  api: 'openai-responses',
  key: (req) => String(req.headers.authorization ?? '').replace(/^Bearer /, ''),
  read(body) {
    const outputs = arrayAt(body, 'input')
      .filter((item) => item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
      .map((item) => textOf(item.output));
    return { outputs, hasTools: arrayAt(body, 'tools').some((tool) => tool.name === 'exec_command') };
  },
  answer: (res, step, body) => answer(res, step, body),
  rejectKey: (res, key) =>
    sendJson(res, 401, { error: { message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }),
  refuseLimit: (res, status) =>
    sendJson(
      res,
      status,
      status === 429
        ? { error: { message: 'Rate limit reached for scripted on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 1s.', type: 'requests', param: null, code: 'rate_limit_exceeded' } }
        : { error: { message: 'The server is overloaded. Please try again later.', type: 'server_error', param: null, code: 'server_overloaded' } },
      { 'retry-after': '1' },
    ),
  // A ChatGPT plan's usage limit, as the Responses API refuses it: codex reads `usage_limit_reached`
  // and its `resets_at`, and retries nothing.
  refuseQuota: (res, resetsAt) =>
    sendJson(res, 429, { error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: resetsAt } }),
};

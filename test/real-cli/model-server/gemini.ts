// The Gemini API as gemini-cli calls it: POST /v1beta/models/<model>:streamGenerateContent?alt=sse
// for turns, and :generateContent with a JSON schema for its model router.
import type { ServerResponse } from 'node:http';
import type { Step } from './scenario.js';
import { arrayAt, type Body, type Protocol } from './protocol.js';
import { cachedOf, sendEvent, sendJson, startSse, textOf, USAGE } from './turn.js';

// gemini's own tools: write_file {file_path, content} and run_shell_command {command}.
function part(step: Step): Body {
  if (step.kind === 'write') return { functionCall: { name: 'write_file', args: { file_path: step.path, content: step.content } } };
  if (step.kind === 'run') return { functionCall: { name: 'run_shell_command', args: { command: step.command, description: 'Check the files' } } };
  if (step.kind === 'tool') return { functionCall: { name: step.name, args: step.args } };
  return { text: step.text };
}

// A value of a JSON schema (gemini's OBJECT / STRING / INTEGER …): the router asks for one.
function sample(schema: Body | undefined): unknown {
  const type = String(schema?.type ?? 'OBJECT').toUpperCase();
  if (type === 'OBJECT') {
    const properties = (schema?.properties ?? {}) as Record<string, Body>;
    return Object.fromEntries(Object.entries(properties).map(([name, inner]) => [name, sample(inner)]));
  }
  if (type === 'INTEGER' || type === 'NUMBER') return 10;
  if (type === 'BOOLEAN') return false;
  if (type === 'ARRAY') return [];
  const choices = schema?.enum;
  return Array.isArray(choices) && choices.length > 0 ? choices[0] : 'scripted';
}

function answer(res: ServerResponse, step: Step, body: Body, url: URL): void {
  const cached = cachedOf(body);
  const usageMetadata = { promptTokenCount: USAGE.input, candidatesTokenCount: USAGE.output, totalTokenCount: USAGE.input + USAGE.output, ...(cached > 0 && { cachedContentTokenCount: cached }) };
  const model = /models\/([^:]+):/.exec(url.pathname)?.[1] ?? 'scripted';
  const config = (body.generationConfig ?? {}) as Body;
  if (url.pathname.endsWith(':countTokens')) return sendJson(res, 200, { totalTokens: USAGE.input });
  if (!url.pathname.endsWith(':streamGenerateContent')) {
    const schema = (config.responseJsonSchema ?? config.responseSchema) as Body | undefined;
    const text = config.responseMimeType === 'application/json' ? JSON.stringify(sample(schema)) : step.kind === 'final' ? step.text : '';
    return sendJson(res, 200, { candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: model });
  }
  startSse(res);
  sendEvent(res, { candidates: [{ content: { role: 'model', parts: [part(step)] }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: model });
  res.end();
}

// The Gemini protocol.
export const gemini: Protocol = {
  api: 'gemini',
  key: (req, url) => String(req.headers['x-goog-api-key'] ?? url.searchParams.get('key') ?? ''),
  read(body) {
    const outputs = arrayAt(body, 'contents')
      .flatMap((content) => arrayAt(content, 'parts'))
      .filter((item) => item.functionResponse !== undefined)
      .map((item) => textOf((item.functionResponse as Body).response));
    const declarations = arrayAt(body, 'tools').flatMap((tool) => arrayAt(tool, 'functionDeclarations'));
    // Headless gemini without yolo offers no write_file, but run_shell_command where a policy allows
    // it, and in plan mode the team tools.
    return { outputs, hasTools: declarations.some((declaration) => declaration.name === 'write_file' || declaration.name === 'run_shell_command' || String(declaration.name).endsWith('team_done')) };
  },
  answer,
  rejectKey: (res) =>
    sendJson(res, 400, {
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }],
      },
    }),
  refuseLimit: (res, status) =>
    sendJson(res, status === 429 ? 429 : 503, {
      error: status === 429
        ? { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }] }
        : { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' },
    }),
};

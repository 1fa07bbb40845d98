// Gemini CLI headless: `gemini -p ... --output-format json`, the prompt fed on stdin.
// Output: one pretty-printed JSON object {session_id, response, stats} or {session_id, error}.
import type { AdapterInput, AgentAdapter, AgentCommand, AgentReport } from '../types.js';
import { makeAgentCommand, makeReport } from './command-line.js';
import { peekJsonString, readJsonObjects, toCount, toObject, toText, type JsonObject } from './json-objects.js';

// Gemini prepends piped stdin to the -p text, so the prompt file goes on stdin (no argv length
// limit) and -p only closes it.
const PROMPT_TRAILER = 'Follow the instructions above.';

// Headless gemini cannot ask for approval; auto_edit lets a worker edit files unattended.
// `permissionMode` names another --approval-mode (default, yolo, plan).
const DEFAULT_APPROVAL_MODE = 'auto_edit';

// Builds the headless call. Turn limits are a settings.json value (maxSessionTurns), not a flag.
function buildGemini(input: AdapterInput): AgentCommand {
  const { agent } = input;
  const args = ['-p', PROMPT_TRAILER, '--output-format', 'json'];
  if (agent.model !== undefined) args.push('--model', agent.model);
  args.push('--approval-mode', agent.permissionMode ?? DEFAULT_APPROVAL_MODE);
  return makeAgentCommand(agent, 'gemini', args, input.promptFile);
}

// ok when the last output object has a `response` and no `error`.
function parseGemini(output: string): AgentReport {
  const result = readJsonObjects(output)
    .filter((record) => 'response' in record || 'error' in record)
    .at(-1);
  if (!result) return { ok: false, error: 'gemini printed no JSON result' };
  const error = toObject(result.error);
  const ok = error === undefined && typeof result.response === 'string';
  return makeReport({
    ok,
    finalText: toText(result.response),
    sessionId: toText(result.session_id),
    tokens: readGeminiTokens(result),
    error: ok ? undefined : describeGeminiError(error),
  });
}

// Sums every model's prompt (input, cache included) and candidates + thoughts (output) tokens.
function readGeminiTokens(result: JsonObject): AgentReport['tokens'] {
  const models = toObject(toObject(result.stats)?.models);
  if (!models) return undefined;
  const tokens = { input: 0, output: 0 };
  for (const model of Object.values(models)) {
    const counts = toObject(toObject(model)?.tokens);
    tokens.input += toCount(counts?.prompt);
    tokens.output += toCount(counts?.candidates) + toCount(counts?.thoughts);
  }
  return tokens;
}

// "FatalTurnLimitedError: Reached max session turns ..." from the error object.
function describeGeminiError(error: JsonObject | undefined): string {
  if (!error) return 'gemini printed no response';
  const message = toText(error.message) ?? 'unknown error';
  const type = toText(error.type);
  return type === undefined ? message : `${type}: ${message}`;
}

// The gemini adapter: a headless command line in, the JSON result object out.
export const gemini: AgentAdapter = {
  name: 'gemini',
  build: buildGemini,
  parse: parseGemini,
  peekSessionId: (partialOutput) => peekJsonString(partialOutput, 'session_id'),
};

// Claude Code in print mode: `claude -p --output-format json`, the prompt fed on stdin.
// Output: one `{"type":"result", ...}` record at the end (the last line of stream-json too).
import type { AdapterInput, AgentAdapter, AgentCommand, AgentReport } from '../types.js';
import { makeAgentCommand, makeReport } from './command-line.js';
import { peekJsonString, readJsonObjects, toCount, toObject, toText, type JsonObject } from './json-objects.js';

// Print mode cannot ask before editing; acceptEdits lets a worker edit the project unattended
// while shell commands stay under the user's own allow rules. `permissionMode` overrides it.
const DEFAULT_PERMISSION_MODE = 'acceptEdits';

// Builds the print-mode call; model, permission mode, turn and budget caps map to real flags.
function buildClaude(input: AdapterInput): AgentCommand {
  const { agent } = input;
  const args = ['-p', '--output-format', 'json'];
  if (agent.model !== undefined) args.push('--model', agent.model);
  args.push('--permission-mode', agent.permissionMode ?? DEFAULT_PERMISSION_MODE);
  if (agent.maxTurns !== undefined) args.push('--max-turns', String(agent.maxTurns));
  if (agent.maxBudgetUsd !== undefined) args.push('--max-budget-usd', String(agent.maxBudgetUsd));
  return makeAgentCommand(agent, 'claude', args, input.promptFile);
}

// Reads the last result record: ok only for subtype "success" with is_error false.
function parseClaude(output: string): AgentReport {
  const result = readJsonObjects(output)
    .filter((record) => record.type === 'result')
    .at(-1);
  if (!result) return { ok: false, error: 'claude printed no result record' };
  const ok = result.subtype === 'success' && result.is_error === false;
  return makeReport({
    ok,
    finalText: toText(result.result),
    sessionId: toText(result.session_id),
    costUsd: typeof result.total_cost_usd === 'number' ? result.total_cost_usd : undefined,
    tokens: readClaudeTokens(result),
    error: ok ? undefined : describeClaudeError(result),
  });
}

// Input counts fresh, cache-written and cache-read tokens: all of them were sent to the model.
function readClaudeTokens(result: JsonObject): AgentReport['tokens'] {
  const usage = toObject(result.usage);
  if (!usage) return undefined;
  const input =
    toCount(usage.input_tokens) + toCount(usage.cache_creation_input_tokens) + toCount(usage.cache_read_input_tokens);
  return { input, output: toCount(usage.output_tokens) };
}

// "error_max_turns: Reached maximum number of turns (3)", or the text of a failed success.
function describeClaudeError(result: JsonObject): string {
  const subtype = toText(result.subtype) ?? 'unknown';
  const errors = Array.isArray(result.errors) ? result.errors.filter((e) => typeof e === 'string') : [];
  const detail = errors.length > 0 ? errors.join('; ') : undefined;
  if (subtype !== 'success') return detail === undefined ? subtype : `${subtype}: ${detail}`;
  return toText(result.result) ?? detail ?? 'is_error';
}

// The claude adapter: a print-mode command line in, the result record out.
export const claude: AgentAdapter = {
  name: 'claude',
  build: buildClaude,
  parse: parseClaude,
  peekSessionId: (partialOutput) => peekJsonString(partialOutput, 'session_id'),
};

// Claude Code in print mode: `claude -p --output-format stream-json --verbose`, the prompt on
// stdin. Output: JSONL records (system/init with the session id, assistant turns with tool use,
// api_retry notices) ending with one `{"type":"result", ...}` record.
import type { AdapterInput, AgentAdapter, AgentCommand, AgentFailure, AgentReport, CliRetry, OutputSignals, PermissionLevel, RateLimit, SpendSoFar, TeamToolServer } from '../types.js';
import { withCached } from '../types.js';
import { readRateLimit } from './rate-limit.js';
import { makeAgentCommand, makeReport } from './command-line.js';
import { dirname, join } from 'node:path';
import { readClaudeRefusal, readDenials } from './claude-denials.js';
import { classifyFailure, makeFailure, type FailureRule } from './failures.js';
import { parseJsonLines } from './output-end.js';
import { peekJsonString, readJsonObjects, toCount, toObject, toText, type JsonObject } from './json-objects.js';
import { TEAM_SERVER_NAME, TEAM_TOOL_NAMES } from './team-tools.js';
import { yaml } from './command-files.js';

// Print mode cannot ask: `dontAsk` denies whatever is not allowed (read tools always are);
// acceptEdits lets it edit the project; `run` also allows Bash, any command, unattended.
const LEVEL_ARGS: Record<PermissionLevel, string[]> = {
  read: ['--permission-mode', 'dontAsk'],
  edit: ['--permission-mode', 'acceptEdits'],
  run: ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash'],
};

// HTTP statuses of a failed API call that no retry fixes.
const STATUS_KINDS: Record<number, AgentFailure['kind']> = { 401: 'bad-key', 403: 'bad-key', 402: 'quota', 404: 'unknown-model' };

// The words of claude's final error texts.
const RULES: FailureRule[] = [
  [/Not logged in/i, 'not-logged-in'],
  [/Invalid API key|authentication_failed|OAuth token/i, 'bad-key'],
  // A plan's limits, in claude's words: "You've hit your session limit · resets 3pm" (weekly, Opus,
  // org's monthly usage, monthly spend limit), "You're out of usage credits".
  [/credit balance|billing|usage limit|quota|(?:hit|reached) your [\w' ]{0,40}limit|out of usage credits/i, 'quota'],
  [/issue with the selected model|model.*(not found|does not exist)/i, 'unknown-model'],
];

// Builds the print-mode call; model, permission level, turn and budget caps map to real flags.
// The attempt folder (prompt, result file) is outside the folder claude works in when that is a
// worktree: `--add-dir` grants it, as claude refuses writes outside its directories otherwise.
function buildClaude(input: AdapterInput): AgentCommand {
  const { agent } = input;
  const args = ['-p', '--output-format', 'stream-json', '--verbose'];
  if (agent.model !== undefined) args.push('--model', agent.model);
  if (agent.maxTurns !== undefined) args.push('--max-turns', String(agent.maxTurns));
  if (agent.maxBudgetUsd !== undefined) args.push('--max-budget-usd', String(agent.maxBudgetUsd));
  // Takes every following word as a folder: an option comes next.
  args.push('--add-dir', dirname(input.resultFile));
  if (input.teamServer) args.push(...teamServerArgs(input.teamServer));
  // Last: --allowedTools takes every following word as a tool name.
  const level = agent.permissionMode !== undefined ? ['--permission-mode', agent.permissionMode] : LEVEL_ARGS[input.permission];
  args.push(...level);
  if (!input.teamServer) return makeAgentCommand(agent, 'claude', args, input.promptFile);
  args.push(...(level.includes('--allowedTools') ? [] : ['--allowedTools']), ...TEAM_TOOL_NAMES.map((name) => `mcp__${TEAM_SERVER_NAME}__${name}`));
  const command = makeAgentCommand(agent, 'claude', args, input.promptFile);
  return { ...command, env: { ...WAIT_FOR_SERVERS, ...command.env } };
}

// Print mode may make its first model call while its MCP servers still start (the model gets a
// WaitForMcpServers tool instead), and waits at most 5 s otherwise: on a busy machine the team
// tools would be missing from the first turn. It waits for them, up to 30 s (the agent's env may
// say otherwise).
const WAIT_FOR_SERVERS = { MCP_CONNECTION_NONBLOCKING: '0', MCP_CONNECT_TIMEOUT_MS: '30000' };

// The team tool server as the only MCP server (the user's own are not loaded: --strict-mcp-config).
// --mcp-config takes JSON text as well as a file, and every following word: an option comes next.
function teamServerArgs(server: TeamToolServer): string[] {
  const config = { mcpServers: { [TEAM_SERVER_NAME]: { type: 'stdio', command: server.command, args: server.args } } };
  return ['--mcp-config', JSON.stringify(config), '--strict-mcp-config'];
}

// Reads the last result record: ok only for subtype "success" with is_error false.
function parseClaude(output: string): AgentReport {
  const records = readJsonObjects(output);
  const result = records.filter((record) => record.type === 'result').at(-1);
  if (!result) {
    const retried = records.filter(isAuthRetry).at(-1);
    const failure = retried ? makeFailure('claude', 'bad-key', describeRetry(retried)) : undefined;
    return makeReport({ ok: false, error: failure?.reason ?? 'claude printed no result record', noRecord: failure ? undefined : true, failure, rateLimit: failure ? undefined : readClaudeRateLimit(records) });
  }
  const ok = result.subtype === 'success' && result.is_error === false;
  // Stopped while it retried a refused key, claude still ends with a plain interrupted result.
  const retried = ok ? undefined : records.filter(isAuthRetry).at(-1);
  const failure = ok ? undefined : (classifyResult(result, describeClaudeError(result)) ?? (retried && makeFailure('claude', 'bad-key', describeRetry(retried))));
  const error = ok ? undefined : retried && failure?.kind === 'bad-key' ? failure.reason : describeClaudeError(result);
  const denials = readDenials(result);
  return makeReport({
    ok,
    finalText: toText(result.result),
    sessionId: toText(result.session_id),
    costUsd: typeof result.total_cost_usd === 'number' ? result.total_cost_usd : undefined,
    tokens: readClaudeTokens(result),
    error,
    failure,
    denials: denials.length > 0 ? denials : undefined,
    refused: readClaudeRefusal(records, result),
    rateLimit: ok || failure ? undefined : readClaudeRateLimit(records, result, error),
  });
}

// HTTP statuses of a rate limit (429) and an overload (529).
const LIMIT_STATUSES = new Set([429, 529]);

// A rate limit or an overload: the result's API status or words, else claude's last retry notice
// for one (it retries them itself, CLAUDE_CODE_MAX_RETRIES times; the notice names the delay).
function readClaudeRateLimit(records: JsonObject[], result?: JsonObject, error?: string): RateLimit | undefined {
  const retry = records.filter((r) => r.type === 'system' && r.subtype === 'api_retry').at(-1);
  const retryAfterMs = retry && typeof retry.retry_delay_ms === 'number' ? Math.round(retry.retry_delay_ms) : undefined;
  const after = retryAfterMs === undefined ? {} : { retryAfterMs };
  const status = result?.api_error_status;
  if (typeof status === 'number' && LIMIT_STATUSES.has(status)) return { reason: error?.includes(String(status)) ? error : `API error ${status}: ${error ?? ''}`.trim(), ...after };
  const worded = error === undefined ? undefined : readRateLimit(error);
  if (worded) return { ...after, ...worded };
  if (!result && retry && typeof retry.error_status === 'number' && LIMIT_STATUSES.has(retry.error_status)) return { reason: describeRetry(retry), ...after };
  return undefined;
}

// Spend so far: the result's totals once it came; before, the tokens of each assistant message
// (its records repeat the message's usage: the last one of each message id counts).
function claudeSpendSoFar(partialOutput: string): SpendSoFar | undefined {
  const records = readJsonObjects(partialOutput);
  const result = records.filter((record) => record.type === 'result').at(-1);
  if (result) return { ...(typeof result.total_cost_usd === 'number' && { costUsd: result.total_cost_usd }), ...(readClaudeTokens(result) && { tokens: readClaudeTokens(result) }) };
  const byMessage = new Map<string, AgentReport['tokens']>();
  records.forEach((record, i) => {
    const message = record.type === 'assistant' ? toObject(record.message) : undefined;
    const tokens = message && readClaudeTokens(message);
    if (tokens) byMessage.set(toText(message!.id) ?? `#${i}`, tokens);
  });
  if (byMessage.size === 0) return undefined;
  const tokens = { input: 0, output: 0 };
  let cached = 0;
  for (const t of byMessage.values()) {
    tokens.input += t!.input;
    tokens.output += t!.output;
    cached += t!.cached ?? 0;
  }
  return { tokens: withCached(tokens, cached) };
}

// A failed result's API status or words, as a not-retryable failure.
function classifyResult(result: JsonObject, error: string | undefined): AgentFailure | undefined {
  const kind = typeof result.api_error_status === 'number' ? STATUS_KINDS[result.api_error_status] : undefined;
  if (kind) return makeFailure('claude', kind, error ?? `API error ${String(result.api_error_status)}`);
  return classifyFailure('claude', error, RULES);
}

// Progress is any record but an api_retry notice; a retry of a refused key is fatal at once, one of a
// rate limit or an overload is told (the CLI rides it out: CLAUDE_CODE_MAX_RETRIES times).
function scanClaude(lines: string[]): OutputSignals {
  let progress = false;
  let failure: AgentFailure | undefined;
  let retry: CliRetry | undefined;
  for (const record of parseJsonLines(lines)) {
    if (record.type === 'system' && record.subtype === 'api_retry') {
      if (isAuthRetry(record)) failure ??= makeFailure('claude', 'bad-key', describeRetry(record));
      else if (typeof record.error_status === 'number' && LIMIT_STATUSES.has(record.error_status)) retry = readRetryNotice(record);
    } else progress = true;
  }
  return { progress, ...(failure && { failure }), ...(retry && { retry }) };
}

// An api_retry record: {"attempt":3,"max_retries":10,"retry_delay_ms":4210,"error_status":429,"error":"rate_limit"}.
function readRetryNotice(record: JsonObject): CliRetry {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined);
  const n = count(record.attempt);
  const max = count(record.max_retries);
  const delayMs = count(record.retry_delay_ms);
  return { reason: `API error ${String(record.error_status)}${typeof record.error === 'string' ? ` (${record.error})` : ''}`, ...(n !== undefined && { n }), ...(max !== undefined && { max }), ...(delayMs !== undefined && { delayMs }) };
}

// claude retries a 401 for minutes; the first notice of one is enough.
function isAuthRetry(record: JsonObject): boolean {
  return record.type === 'system' && record.subtype === 'api_retry' && (record.error_status === 401 || record.error_status === 403 || record.error === 'authentication_failed');
}

function describeRetry(record: JsonObject): string {
  return `API error ${String(record.error_status ?? '')} ${toText(record.error) ?? ''}, retried by claude`.replace(/\s+/g, ' ');
}

// Input counts fresh, cache-written and cache-read tokens: all of them were sent to the model; the
// cache-read ones are the cached.
function readClaudeTokens(result: JsonObject): AgentReport['tokens'] {
  const usage = toObject(result.usage);
  if (!usage) return undefined;
  const input =
    toCount(usage.input_tokens) + toCount(usage.cache_creation_input_tokens) + toCount(usage.cache_read_input_tokens);
  return withCached({ input, output: toCount(usage.output_tokens) }, toCount(usage.cache_read_input_tokens));
}

// "error_max_turns: Reached maximum number of turns (3)", or the text of a failed success.
function describeClaudeError(result: JsonObject): string {
  const subtype = toText(result.subtype) ?? 'unknown';
  const errors = Array.isArray(result.errors) ? result.errors.filter((e) => typeof e === 'string') : [];
  const detail = errors.length > 0 ? errors.join('; ') : undefined;
  if (subtype !== 'success') return detail === undefined ? subtype : `${subtype}: ${detail}`;
  return toText(result.result) ?? detail ?? 'is_error';
}

// The claude adapter: a print-mode command line in, the streamed records out.
export const claude: AgentAdapter = {
  facts: {
    byName: true,
    teamTools: true,
    pathRank: 1,
    tiers: ['haiku', 'sonnet', 'opus'],
    capsSpend: true,
    init: {
      setUp: 'Claude Code',
      rank: 1,
      // .claude/commands/<name>.md; `allowed-tools` lets the command run `team` only.
      files: ({ team, commands }, root) =>
        commands.map((c) => ({
          path: join(root, '.claude', 'commands', `${c.name}.md`),
          text: `---\ndescription: ${yaml(c.description)}\nargument-hint: ${yaml(c.argumentHint)}\nallowed-tools: Bash(${team}:*)\n---\n\n${c.body('$ARGUMENTS', team)}`,
        })),
    },
    login: {
      env: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX'],
      files: (env, home) => [join(env.CLAUDE_CONFIG_DIR ?? join(home, '.claude'), '.credentials.json')],
      how: 'run `claude` and /login, or set ANTHROPIC_API_KEY',
    },
    // Sessions, settings and backups in its config folder; ~/.claude.json beside it unless CLAUDE_CONFIG_DIR moves it there.
    state: (env, home) => (env.CLAUDE_CONFIG_DIR ? { dirs: [env.CLAUDE_CONFIG_DIR] } : { dirs: [join(home, '.claude')], files: [join(home, '.claude.json')] }),
  },
  name: 'claude',
  build: buildClaude,
  parse: parseClaude,
  peekSessionId: (partialOutput) => peekJsonString(partialOutput, 'session_id'),
  scan: scanClaude,
  spendSoFar: claudeSpendSoFar,
};

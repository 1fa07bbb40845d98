// opencode: `opencode run --format json`, the prompt piped on stdin (it becomes the message).
// Output: JSONL events {type, timestamp, sessionID, part | error}: step_start, text, tool_use,
// step_finish (cost, tokens, reason), error; newer versions end with a `done` event.
import { dirname, join } from 'node:path';
import type { AdapterInput, AgentAdapter, AgentCommand, AgentFailure, AgentReport, OutputSignals, PermissionLevel, TeamToolServer } from '../types.js';
import { withCached } from '../types.js';
import { makeAgentCommand, makeReport } from './command-line.js';
import { spendOf } from './spend.js';
import { classifyFailure, describeToolCall, refusedPermission, type FailureRule } from './failures.js';
import { parseJsonLines, stripAnsi } from './output-end.js';
import { peekJsonString, readJsonObjects, toCount, toObject, toText, type JsonObject } from './json-objects.js';
import { TEAM_CALL_TIMEOUT_MS, TEAM_SERVER_NAME } from './team-tools.js';
import { yaml } from './command-files.js';
import { rateLimitOfStatus, readRetryAfterHeader } from './rate-limit.js';

// `opencode run` rejects permission requests unless told `--auto`; `permissionMode: "auto"`
// asks for that (and leaves permissions to the project's opencode config).
const AUTO_MODE = 'auto';

// Otherwise each level sets opencode's own permission config through OPENCODE_PERMISSION,
// which opencode merges over the project's: edits and shell commands allowed or denied.
const PERMISSIONS: Record<PermissionLevel, { edit: string; bash: string }> = {
  read: { edit: 'deny', bash: 'deny' },
  edit: { edit: 'allow', bash: 'deny' },
  run: { edit: 'allow', bash: 'allow' },
};

// opencode's error names and words that no retry fixes.
// With no provider configured, opencode falls back to its hosted service (opencode.ai/zen).
const RULES: FailureRule[] = [
  [/opencode\.ai\/zen/, 'missing-provider'],
  [/ProviderAuthError|API key|Unauthorized|\b401\b/i, 'bad-key'],
  [/ModelNotFound|model.*not found/i, 'unknown-model'],
  [/ProviderInit|no provider|provider.*not found|ProviderNotFound/i, 'missing-provider'],
  [/quota|insufficient|billing|credit/i, 'quota'],
];

// A step that ends by calling tools is followed by another step; any other reason is final.
const TOOL_CALLS_REASON = 'tool-calls';

// Each attempt keeps its session in a database of its own, in the attempt folder: two opencode
// processes on one database may fail with "database is locked". Auth and config stay where they are.
const DB_FILE = 'opencode.db';

// Builds the run call; opencode has no turn or budget flags. Its project is the folder it runs in
// (a worktree, with isolation): the attempt folder (prompt, result file) is outside, and
// `opencode run` rejects what it would ask about, so the permission rules allow that folder.
function buildOpencode(input: AdapterInput): AgentCommand {
  const { agent } = input;
  const attemptDir = dirname(input.resultFile);
  const args = ['run', '--format', 'json'];
  if (agent.model !== undefined) args.push('--model', agent.model);
  if (agent.permissionMode === AUTO_MODE) args.push('--auto');
  const command = makeAgentCommand(agent, 'opencode', args, input.promptFile);
  const own: Record<string, string> = { OPENCODE_DB: join(attemptDir, DB_FILE) };
  if (agent.permissionMode !== AUTO_MODE) {
    // opencode asks for `external_directory` with the pattern `<folder>/*` of the file it touches.
    const permission = { ...PERMISSIONS[input.permission], external_directory: { [`${attemptDir}/*`]: 'allow' } };
    own.OPENCODE_PERMISSION = JSON.stringify(permission);
  }
  if (input.teamServer) own.OPENCODE_CONFIG_CONTENT = JSON.stringify(teamServerConfig(input.teamServer));
  return { ...command, env: { ...own, ...command.env } };
}

// The team tool server as a local MCP server of opencode's config: OPENCODE_CONFIG_CONTENT is
// merged over the user's and the project's config files. Its tools are named team_<tool>; its
// `timeout` bounds the server's start and each call (5 s unless set).
function teamServerConfig(server: TeamToolServer): Record<string, unknown> {
  return { mcp: { [TEAM_SERVER_NAME]: { type: 'local', command: [server.command, ...server.args], enabled: true, timeout: TEAM_CALL_TIMEOUT_MS } } };
}

// Progress is any event of the run; an error event that names a setup failure is fatal.
function scanOpencode(lines: string[]): OutputSignals {
  let progress = false;
  let failure: AgentFailure | undefined;
  for (const event of parseJsonLines(lines)) {
    if (typeof event.type !== 'string' || !('sessionID' in event)) continue;
    if (event.type === 'error' && !readOpencodeRateLimit(toObject(event.error))) failure ??= classifyFailure('opencode', describeOpencodeError(toObject(event.error)), RULES);
    else progress = true;
  }
  return failure ? { progress, failure } : { progress };
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
  let rateLimit: AgentReport['rateLimit'];
  for (const event of events) {
    const part = toObject(event.part);
    if (event.type === 'text' && typeof part?.text === 'string') texts.push(part.text);
    if (event.type === 'error') errors.push(describeOpencodeError(toObject(event.error)));
    if (event.type === 'error') rateLimit = readOpencodeRateLimit(toObject(event.error)) ?? rateLimit;
    if (event.type === 'done') done = true;
    if (event.type === 'step_finish' && part) {
      const counts = toObject(part.tokens);
      const cache = toObject(counts?.cache);
      costUsd = (costUsd ?? 0) + toCount(part.cost);
      tokens = withCached(
        { input: (tokens?.input ?? 0) + toCount(counts?.input) + toCount(cache?.read) + toCount(cache?.write), output: (tokens?.output ?? 0) + toCount(counts?.output) + toCount(counts?.reasoning) },
        (tokens?.cached ?? 0) + toCount(cache?.read),
      );
      lastReason = toText(part.reason);
    }
  }
  const finished = done || (lastReason !== undefined && lastReason !== TOOL_CALLS_REASON);
  const ok = errors.length === 0 && finished;
  // A rejected permission ends the session: that is why no final step came.
  const refused = readRefusal(events, output);
  const error = errors.length > 0 ? errors.join('; ') : finished ? undefined : (refused?.reason ?? 'opencode printed no final step');
  return makeReport({
    ok,
    finalText: texts.length > 0 ? texts.join('\n') : undefined,
    sessionId: toText(events[0]?.sessionID),
    costUsd,
    tokens,
    error: ok ? undefined : error,
    noRecord: events.length === 0 ? true : undefined,
    failure: ok || rateLimit ? undefined : classifyFailure('opencode', errors.join('; ') || undefined, RULES),
    refused,
    rateLimit: ok ? undefined : rateLimit,
  });
}

// What `opencode run` says when it rejects a permission request (it cannot ask): a line
// "! permission requested: external_directory (/p/*); auto-rejecting" on stderr, and the tool
// call's error: "The user rejected permission ..." (or a deny rule's "... prevents you from using ...").
const REJECTED_LINE = /permission requested: [^\n]*?; auto-rejecting/;
const REJECTED_TOOL = /rejected permission|prevents you from using this specific tool call/i;

// The first tool call opencode refused for lack of permission, in its words.
function readRefusal(events: JsonObject[], output: string): AgentFailure | undefined {
  const line = REJECTED_LINE.exec(stripAnsi(output))?.[0];
  const call = events.map((event) => toObject(event.part)).find((part) => part?.type === 'tool' && REJECTED_TOOL.test(toText(toObject(part.state)?.error) ?? ''));
  if (line === undefined && call === undefined) return undefined;
  const state = toObject(call?.state);
  const input = toObject(state?.input);
  const what = call ? describeToolCall(toText(call.tool) ?? 'tool', toText(input?.filePath) ?? toText(input?.path), toText(input?.command)) : 'a tool call';
  return refusedPermission('opencode', what, line ?? toText(state?.error) ?? 'permission rejected');
}

// opencode retries a 429 or a 5xx itself, 5 times (fixed: no setting), each after the response's
// retry-after-ms / retry-after header (uncapped), else 2 s doubling, and prints nothing of it in
// json mode; then one `error` event: {name: "APIError", data: {message, statusCode, isRetryable,
// responseHeaders, responseBody, metadata: {url}}}. A 429, 503 or 529 there is a rate limit, with
// the header's wait; a spent balance's words in the body (insufficient_quota) make it quota.
function readOpencodeRateLimit(error: JsonObject | undefined): AgentReport['rateLimit'] {
  const data = toObject(error?.data);
  const status = data?.statusCode;
  const text = `${toText(data?.message) ?? ''} ${toText(data?.responseBody) ?? ''}`;
  return rateLimitOfStatus(status, `${describeOpencodeError(error)} (HTTP ${String(status)})`, text, readRetryAfterHeader(toObject(data?.responseHeaders)));
}

// "APIError: ... (https://host/v1/...)" from opencode's {name, data: {message, url}} error shape:
// the address it tried is kept, it tells a fallback to the hosted service from the user's own.
function describeOpencodeError(error: JsonObject | undefined): string {
  const name = toText(error?.name) ?? 'UnknownError';
  const data = toObject(error?.data);
  const message = toText(data?.message);
  const url = toText(data?.url) ?? toText(toObject(data?.metadata)?.url);
  const text = message === undefined ? name : `${name}: ${message}`;
  return url === undefined || text.includes(url) ? text : `${text} (${url})`;
}

// The opencode adapter: a run command line in, the JSONL events out.
export const opencode: AgentAdapter = {
  facts: {
    byName: true,
    teamTools: true,
    pathRank: 2,
    init: {
      setUp: 'OpenCode',
      rank: 2,
      // .opencode/commands/<name>.md in a project, ~/.config/opencode/commands/ for the user.
      files: ({ team, commands }, root, global) =>
        commands.map((c) => ({
          path: join(root, ...(global ? ['.config', 'opencode'] : ['.opencode']), 'commands', `${c.name}.md`),
          text: `---\ndescription: ${yaml(c.description)}\n---\n\n${c.body('$ARGUMENTS', team)}`,
        })),
    },
    login: {
      env: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'OPENROUTER_API_KEY'],
      files: (env, home) => [join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'opencode', 'auth.json')],
      how: 'run `opencode auth login`, or set a provider key such as ANTHROPIC_API_KEY',
    },
    // Its data (auth, snapshots, logs), config, cache (provider packages) and state folders.
    state: (env, home) => ({
      dirs: [env.XDG_DATA_HOME ?? join(home, '.local', 'share'), env.XDG_CONFIG_HOME ?? join(home, '.config'), env.XDG_CACHE_HOME ?? join(home, '.cache'), env.XDG_STATE_HOME ?? join(home, '.local', 'state')].map((dir) => join(dir, 'opencode')),
    }),
  },
  spendSoFar: (partialOutput) => spendOf(parseOpencode(partialOutput)),
  name: 'opencode',
  build: buildOpencode,
  parse: parseOpencode,
  peekSessionId: (partialOutput) => peekJsonString(partialOutput, 'sessionID'),
  scan: scanOpencode,
};

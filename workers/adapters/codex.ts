// OpenAI Codex: `codex exec --json -`, the prompt read from stdin (the `-` argument).
// Output: JSONL thread events (thread.started, item.completed, turn.completed / turn.failed, error).
import { dirname, join } from 'node:path';
import type { AdapterInput, AgentAdapter, AgentCommand, AgentFailure, AgentReport, CliRetry, OutputSignals, PermissionLevel, TeamToolServer } from '../types.js';
import { withCached } from '../types.js';
import { makeAgentCommand, makeReport } from './command-line.js';
import { spendOf } from './spend.js';
import { classifyFailure, describeToolCall, refusedPermission, type FailureRule } from './failures.js';
import { parseJsonLines } from './output-end.js';
import { peekJsonString, readJsonObjects, toCount, toObject, toText, type JsonObject } from './json-objects.js';
import { TEAM_SERVER_NAME } from './team-tools.js';
import { plainReason, readRateLimit } from './rate-limit.js';

// `codex exec` never asks; its sandbox bounds what it does. read-only reads and runs read-only
// commands; workspace-write edits and runs commands inside the project, with no network.
// `permissionMode` names another sandbox (danger-full-access), or `yolo` for none at all.
const SANDBOXES: Record<PermissionLevel, string> = { read: 'read-only', edit: 'workspace-write', run: 'workspace-write' };

// The sandbox whose writable roots are the project and the folders `--add-dir` names.
const WORKSPACE_WRITE = 'workspace-write';

// The words of codex's error events that no retry fixes.
const RULES: FailureRule[] = [
  [/not logged in|not signed in|login required|run `?codex login/i, 'not-logged-in'],
  [/401 Unauthorized|invalid_api_key|Incorrect API key|Missing bearer|invalid x-api-key/i, 'bad-key'],
  [/insufficient_quota|exceeded your current quota|usage limit|billing/i, 'quota'],
  [/model_not_found|model.*(does not exist|not found|not supported)/i, 'unknown-model'],
];


// The permission mode that means "no sandbox, no approvals" (for already-isolated machines).
const BYPASS_MODE = 'yolo';

// Builds the exec call. Codex has no turn or budget flags; --skip-git-repo-check lets a run
// work in a project that is not (yet) a git repository. In workspace-write, only the folder codex
// runs in (a worktree, with isolation) is writable: `--add-dir` adds the attempt folder, where the
// result file goes (codex ignores it, with a warning, in read-only).
function buildCodex(input: AdapterInput): AgentCommand {
  const { agent } = input;
  const args = ['exec', '--json', '--skip-git-repo-check'];
  if (agent.model !== undefined) args.push('--model', agent.model);
  const sandbox = agent.permissionMode ?? SANDBOXES[input.permission];
  if (agent.permissionMode === BYPASS_MODE) args.push('--dangerously-bypass-approvals-and-sandbox');
  else args.push('--sandbox', sandbox);
  if (sandbox === WORKSPACE_WRITE) args.push('--add-dir', dirname(input.resultFile));
  if (input.teamServer) args.push(...teamServerArgs(input.teamServer));
  args.push('-');
  return makeAgentCommand(agent, 'codex', args, input.promptFile);
}

// How long codex may wait for the team tool server to start (it is ready long before, unless the machine is busy).
const TEAM_SERVER_WAIT_MS = 30_000;

// The team tool server through config overrides: each `-c key=value` value is TOML (a JSON string
// or array of strings is one). `codex exec` never asks, so a tool that wants approval is refused:
// the server's tools are approved up front.
function teamServerArgs(server: TeamToolServer): string[] {
  const key = `mcp_servers.${TEAM_SERVER_NAME}`;
  return [
    '-c', `${key}.command=${JSON.stringify(server.command)}`,
    '-c', `${key}.args=${JSON.stringify(server.args)}`,
    '-c', `${key}.default_tools_approval_mode="approve"`,
    // codex waits this long for its MCP servers before the first turn, then goes on without those
    // still starting: on a busy machine the team tools would be missing from the first turn.
    '-c', `mcp_optional_startup_grace_ms=${TEAM_SERVER_WAIT_MS}`,
  ];
}

// ok only when the last terminal event is turn.completed (an `error` event may be a retry that
// a later turn.completed supersedes); tokens are summed over turn.completed usage.
function parseCodex(output: string): AgentReport {
  let sessionId: string | undefined;
  let finalText: string | undefined;
  let terminal: JsonObject | undefined;
  let tokens: AgentReport['tokens'];
  let failure: AgentFailure | undefined;
  const events = readJsonObjects(output);
  for (const event of events) {
    if (event.type === 'thread.started') sessionId = toText(event.thread_id) ?? sessionId;
    const item = toObject(event.item);
    if (event.type === 'item.completed' && item?.type === 'agent_message') finalText = toText(item.text);
    if (event.type === 'turn.completed') {
      const usage = toObject(event.usage);
      // Its input counts the cached tokens too (cached_input_tokens are part of it).
      tokens = withCached(
        { input: (tokens?.input ?? 0) + toCount(usage?.input_tokens), output: (tokens?.output ?? 0) + toCount(usage?.output_tokens) },
        (tokens?.cached ?? 0) + toCount(usage?.cached_input_tokens),
      );
    }
    if (event.type === 'turn.completed' || event.type === 'turn.failed' || event.type === 'error') terminal = event;
    // The last classified error: codex's own words, after its reconnect notices.
    if (event.type === 'error' || event.type === 'turn.failed') failure = classifyFailure('codex', describeCodexError(event), RULES) ?? failure;
  }
  const ok = terminal?.type === 'turn.completed';
  const noRecord = events.every((event) => typeof event.type !== 'string') ? true : undefined;
  return makeReport({ ok, finalText, sessionId, tokens, error: ok ? undefined : describeCodexError(terminal), noRecord: ok ? undefined : noRecord, failure: ok ? undefined : failure, refused: readCodexRefusal(output) });
}

// What codex logs (stderr) for a tool call its sandbox or approval policy refused, e.g.
// "ERROR codex_core::tools::router: error=patch rejected: writing outside of the project; rejected by user approval settings".
const REFUSAL = /codex_core::tools::router: error=((patch )?[^\n]*(rejected|denied)[^\n]*)/;

// The first tool call codex refused, in its words (it does not name the file).
function readCodexRefusal(output: string): AgentFailure | undefined {
  const match = REFUSAL.exec(output);
  if (!match) return undefined;
  return refusedPermission('codex', describeToolCall(match[2] ? 'apply_patch' : 'tool', undefined, undefined), match[1]!.trim());
}

// Progress is any event but an error (codex's reconnect notices: it retries a lost network forever).
// A reconnect after a rate limit or an overload is told (codex rides it out, its stream_max_retries times).
function scanCodex(lines: string[]): OutputSignals {
  let progress = false;
  let failure: AgentFailure | undefined;
  let retry: CliRetry | undefined;
  for (const event of parseJsonLines(lines)) {
    if (typeof event.type !== 'string') continue;
    const message = event.type === 'error' ? describeCodexError(event) : undefined;
    // A reconnect is noise, but one after a refused key will never succeed.
    if (message !== undefined) {
      failure ??= classifyFailure('codex', message, RULES);
      retry = readReconnect(message) ?? retry;
    } else progress = true;
  }
  return { progress, ...(failure && { failure }), ...(retry && { retry }) };
}

// "Reconnecting... 3/5 (exceeded retry limit, last status: 429 Too Many Requests)".
const RECONNECT = /^Reconnecting\.*\s*(\d+)\/(\d+)\s*\((.*)\)\s*$/s;

// A reconnect notice of a rate limit or an overload, as a retry of codex's own.
function readReconnect(message: string): CliRetry | undefined {
  const match = RECONNECT.exec(message.trim());
  if (!match || !readRateLimit(match[3]!)) return undefined;
  return { reason: plainReason(match[3]!), n: Number(match[1]), max: Number(match[2]) };
}

// The message of a turn.failed or error event.
function describeCodexError(event: JsonObject | undefined): string {
  if (!event) return 'codex printed no turn.completed event';
  const message = event.type === 'turn.failed' ? toText(toObject(event.error)?.message) : toText(event.message);
  return message ?? String(event.type);
}

// Codex's execpolicy rule (Starlark) for `team init --codex`: commands whose first word is `team` run
// outside the sandbox.
function codexInitRule(team: string): string {
  return `# Written by \`team init --codex\`: lets Codex run teamline's \`team\` outside its sandbox, where a
# detached orchestrator can write .team/ and .git and outlive the command. Rules in a project's
# .codex/rules/ apply only when the project is trusted in Codex.
prefix_rule(
    pattern = [${JSON.stringify(team)}],
    decision = "allow",
)
`;
}

// The codex adapter: an exec command line in, the JSONL thread events out.
export const codex: AgentAdapter = {
  facts: {
    byName: true,
    teamTools: true,
    pathRank: 3,
    tiers: ['gpt-5-codex-mini', 'gpt-5-codex', 'gpt-5'],
    init: {
      setUp: 'Codex (the skill $team)',
      rank: 4,
      // Codex (0.117 and later) has no custom prompts: a skill, invoked as $team, that takes no
      // arguments; and the rule that runs `team` outside the sandbox (.codex/rules/ of a trusted
      // project, or ~/.codex/rules/).
      files: ({ team, skill }, root) => [
        { path: join(root, '.agents', 'skills', 'team', 'SKILL.md'), text: skill },
        { path: join(root, '.codex', 'rules', 'team.rules'), text: codexInitRule(team) },
      ],
      notes: (root, global) =>
        global
          ? []
          : [`codex: the rule in .codex/rules/team.rules (\`team\` runs outside the sandbox) applies only when this project is trusted in Codex: say yes when codex asks at its first start here, or add \`[projects.${JSON.stringify(root)}] trust_level = "trusted"\` to ~/.codex/config.toml`],
      // It runs commands with `bash -lc`, and /etc/profile resets PATH.
      loginShell: true,
    },
    login: { env: ['OPENAI_API_KEY', 'CODEX_API_KEY'], files: (env, home) => [join(env.CODEX_HOME ?? join(home, '.codex'), 'auth.json')], how: 'run `codex login`, or set OPENAI_API_KEY' },
    // Its sandbox (bubblewrap) makes /tmp/codex-daemon-<uid> when it is missing: read-only in the
    // fence, so codex could not build it on a machine where no codex had run unfenced yet.
    state: (env, home) => ({ dirs: [env.CODEX_HOME ?? join(home, '.codex')], private: [`/tmp/codex-daemon-${process.getuid?.() ?? 0}`] }),
  },
  spendSoFar: (partialOutput) => spendOf(parseCodex(partialOutput)),
  name: 'codex',
  build: buildCodex,
  parse: parseCodex,
  peekSessionId: (partialOutput) => peekJsonString(partialOutput, 'thread_id'),
  scan: scanCodex,
};

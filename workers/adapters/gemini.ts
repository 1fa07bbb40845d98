// Gemini CLI headless: `gemini -p ... --output-format json`, the prompt fed on stdin.
// Output: one pretty-printed JSON object {session_id, response, stats} or {session_id, error}.
import { dirname, join } from 'node:path';
import type { AdapterInput, AgentAdapter, AgentCommand, AgentFailure, AgentReport, OutputSignals, PermissionLevel } from '../types.js';
import { withCached } from '../types.js';
import { makeAgentCommand, makeReport } from './command-line.js';
import { classifyFailure, describeToolCall, refusedPermission, type FailureRule } from './failures.js';
import { peekJsonString, readJsonObjects, toCount, toObject, toText, type JsonObject } from './json-objects.js';
import { GEMINI_HOME_VAR, writeGeminiHome, writeTeamPolicy } from './gemini-home.js';
import { TEAM_SERVER_NAME } from './team-tools.js';
import { makeRateLimit, rateLimitOfStatus } from './rate-limit.js';

// Gemini prepends piped stdin to the -p text, so the prompt file goes on stdin (no argv length
// limit) and -p only closes it.
const PROMPT_TRAILER = 'Follow the instructions above.';

// Headless gemini cannot ask for approval: plan is its read-only mode, auto_edit approves edits
// (and offers no shell tool), yolo approves every tool, shell commands included.
// `permissionMode` names another --approval-mode for every stage.
const APPROVAL_MODES: Record<PermissionLevel, string> = { read: 'plan', edit: 'auto_edit', run: 'yolo' };

// gemini >= 0.61 will not start headless in a folder the user never trusted (exit 55); the
// project is the one the user ran `team` in, so this session trusts it.
const TRUST_FLAG = '--skip-trust';

// The words of gemini's fatal errors (FatalAuthenticationError exits 41). A 429 or 503 it gave up
// retrying is a rate limit (rateLimitOf), unless its words say a daily quota is spent.
const RULES: FailureRule[] = [
  [/Please set an Auth method|not logged in|Login required/i, 'not-logged-in'],
  [/API key not valid|API_KEY_INVALID|invalid authentication credentials|\b401\b|Invalid auth method/i, 'bad-key'],
  [/quota|RESOURCE_EXHAUSTED|billing/i, 'quota'],
  [/model.*(not found|is not found|does not exist)|\b404\b.*model/i, 'unknown-model'],
];

// Notices of a request gemini retries by itself (a rate limit's second line is the API's
// suggestion: "Suggested retry after 1s.. Retrying after 5292ms..."), and the stack frames it
// prints with them.
const NOISE = [/^Attempt \d+ failed/, /^Suggested retry after /, /^\s*at /, /^\s*$/];

// gemini's launcher starts node a second time to run the CLI with a larger heap (half the machine's
// memory), unless GEMINI_CLI_NO_RELAUNCH is set: the second start cost 1.3 CPU-s of its 3 at each
// start here (`gemini --version`: 3.0 against 1.7 user seconds). A worker's gemini starts once,
// with node's default heap; an agent's own env may set it otherwise.
export const GEMINI_START_ENV: Record<string, string> = { GEMINI_CLI_NO_RELAUNCH: 'true' };

// Builds the headless call. Turn limits are a settings.json value (maxSessionTurns), not a flag.
// Gemini's file tools stay inside its workspace, the folder it runs in (a worktree, with
// isolation): `--include-directories` adds the attempt folder, where the result file goes.
function buildGemini(input: AdapterInput): AgentCommand {
  const { agent } = input;
  const args = ['-p', PROMPT_TRAILER, '--output-format', 'json', TRUST_FLAG];
  if (agent.model !== undefined) args.push('--model', agent.model);
  // An array option: an option comes next.
  args.push('--include-directories', dirname(input.resultFile));
  args.push('--approval-mode', agent.permissionMode ?? APPROVAL_MODES[input.permission]);
  if (!input.teamServer) return startOnce(makeAgentCommand(agent, 'gemini', args, input.promptFile));
  // An array option: an option comes next (this one names the only MCP server it may start).
  args.push('--allowed-mcp-server-names', TEAM_SERVER_NAME, '--policy', writeTeamPolicy(dirname(input.resultFile)));
  const command = startOnce(makeAgentCommand(agent, 'gemini', args, input.promptFile));
  const home = writeGeminiHome(input.teamServer, dirname(input.resultFile), { ...process.env, ...agent.env });
  // Last: made from the agent's own GEMINI_CLI_HOME, if it has one.
  return { ...command, env: { ...command.env, [GEMINI_HOME_VAR]: home } };
}

function startOnce(command: AgentCommand): AgentCommand {
  return { ...command, env: { ...GEMINI_START_ENV, ...command.env } };
}

// Any line but a retry notice or its stack is progress (json mode prints its result at the end).
function scanGemini(lines: string[]): OutputSignals {
  return { progress: lines.some((line) => !NOISE.some((noise) => noise.test(line))) };
}

// ok when the last output object has a `response` and no `error`.
function parseGemini(output: string): AgentReport {
  const result = readJsonObjects(output)
    .filter((record) => 'response' in record || 'error' in record)
    .at(-1);
  const refused = readGeminiRefusal(output);
  if (!result) return makeReport({ ok: false, error: 'gemini printed no JSON result', noRecord: true, refused, rateLimit: readRetryNotice(output) });
  const error = toObject(result.error);
  const ok = error === undefined && typeof result.response === 'string';
  const described = ok ? undefined : describeGeminiError(error);
  const rateLimit = ok ? undefined : rateLimitOfStatus(error?.code, `${described} (HTTP ${String(error?.code)})`, described!);
  return makeReport({
    ok,
    finalText: toText(result.response),
    sessionId: toText(result.session_id),
    tokens: readGeminiTokens(result),
    error: described,
    failure: rateLimit ? undefined : classifyFailure('gemini', described, RULES),
    refused,
    rateLimit,
  });
}

// gemini retries a 429 or a 503 itself, printing each time (stderr) "Attempt 2 failed: Resource
// has been exhausted (e.g. check quota).\nSuggested retry after 1s.. Retrying after 10469ms..."
// (the suggestion is the API's RetryInfo; the wait is gemini's own back-off): when it was stopped
// while retrying, its last notice is the rate limit (it prints these only for a 429, 499 or 503;
// other retries say "failed with status N").
const RETRY_NOTICE = /^Attempt \d+ failed(?: with status (\d{3}))?(?:: ([\s\S]{1,600}?))?\.? (?:Retrying after \d+ms\.\.\.|Retrying with backoff\.\.\.|Max attempts reached)/gm;

function readRetryNotice(output: string): AgentReport['rateLimit'] {
  const notice = [...output.matchAll(RETRY_NOTICE)].at(-1);
  if (!notice) return undefined;
  const [whole, status, said] = notice;
  const reason = `gemini was retrying: ${whole}`;
  return status === undefined ? makeRateLimit(reason, said ?? whole) : rateLimitOfStatus(Number(status), reason, whole);
}

// What gemini prints (stderr) for a tool call it refused: "Error executing tool write_file: Path
// not in workspace: Attempted path "/p/result.json" resolves outside the allowed workspace
// directories: ...", a policy's "Tool execution denied by policy.", a git-ignored file's
// "File path '/p' is ignored by configured ignore patterns.".
const TOOL_ERROR = /^Error executing tool (\S+): (.*)$/gm;
const REFUSAL = /Path not in workspace|denied by policy|ignored by configured ignore patterns/;
const PATH = /(?:Attempted path|File path) ["']([^"']+)["']/;

// The first tool call gemini refused for lack of permission, in its words.
function readGeminiRefusal(output: string): AgentFailure | undefined {
  for (const [, tool, said] of output.matchAll(TOOL_ERROR)) {
    if (REFUSAL.test(said!)) return refusedPermission('gemini', describeToolCall(tool!, PATH.exec(said!)?.[1], undefined), said!);
  }
  return undefined;
}

// Sums every model's prompt (input, cache included) and candidates + thoughts (output) tokens.
function readGeminiTokens(result: JsonObject): AgentReport['tokens'] {
  const models = toObject(toObject(result.stats)?.models);
  if (!models) return undefined;
  const tokens = { input: 0, output: 0 };
  let cached = 0;
  for (const model of Object.values(models)) {
    const counts = toObject(toObject(model)?.tokens);
    tokens.input += toCount(counts?.prompt);
    tokens.output += toCount(counts?.candidates) + toCount(counts?.thoughts);
    cached += toCount(counts?.cached);
  }
  return withCached(tokens, cached);
}

// "FatalTurnLimitedError: Reached max session turns ..." from the error object.
function describeGeminiError(error: JsonObject | undefined): string {
  if (!error) return 'gemini printed no response';
  const message = toText(error.message) ?? 'unknown error';
  const type = toText(error.type);
  return type === undefined ? message : `${type}: ${message}`;
}

// How gemini is told a folder is trusted: it asks at its first start there, headless it reads a variable.
const GEMINI_TRUST = 'gemini asks at its first start in a folder; headless, GEMINI_CLI_TRUST_WORKSPACE=true trusts it';

// Gemini's user policy for `team init --gemini --global`: shell commands that start with `team` run
// without asking (headless gemini, which cannot ask, offers no shell tool for a command no policy allows).
function geminiInitPolicy(team: string): string {
  return `# Written by \`team init --gemini --global\`: lets gemini run teamline's \`team\` commands.
[[rule]]
toolName = "run_shell_command"
commandPrefix = ${JSON.stringify(team)}
decision = "allow"
priority = 100
`;
}

// The gemini adapter: a headless command line in, the JSON result object out.
export const gemini: AgentAdapter = {
  facts: {
    byName: true,
    teamTools: true,
    pathRank: 4,
    tiers: ['gemini-2.5-flash-lite', 'gemini-2.5-flash', 'gemini-2.5-pro'],
    init: {
      setUp: 'Gemini CLI',
      rank: 3,
      // .gemini/commands/<name>.toml with `description` and `prompt`, {{args}} the arguments; the
      // policy that lets it run `team` goes to the user's folder only (gemini 0.61 ignores a
      // project's .gemini/policies/).
      files: ({ team, commands }, root, global) => [
        ...commands.map((c) => ({
          path: join(root, '.gemini', 'commands', `${c.name}.toml`),
          text: `description = ${JSON.stringify(c.description)}\nprompt = '''\n${c.body('{{args}}', team)}'''\n`,
        })),
        ...(global ? [{ path: join(root, '.gemini', 'policies', 'team.toml'), text: geminiInitPolicy(team) }] : []),
      ],
      notes: (_root, global, team) => [
        global
          ? `gemini: the policy ~/.gemini/policies/team.toml lets gemini run \`team\`; headless gemini also needs the project folder trusted (${GEMINI_TRUST})`
          : `gemini: headless gemini offers its shell tool only in a trusted folder and for a command a user policy allows: trust this folder (${GEMINI_TRUST}) and run \`team init --gemini --global${team === 'team' ? '' : ` --bin ${team}`}\` once for the policy ~/.gemini/policies/team.toml (gemini ignores a project's .gemini/policies/)`,
      ],
    },
    login: { env: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI'], files: (_env, home) => [join(home, '.gemini', 'oauth_creds.json')], how: 'run `gemini` and sign in, or set GEMINI_API_KEY' },
    // The user's .gemini: the attempt's own gemini home (in the attempt folder) links its entries there (chats, logs, history).
    state: (env, home) => ({ dirs: [join(env[GEMINI_HOME_VAR] || home, '.gemini')] }),
  },
  name: 'gemini',
  build: buildGemini,
  parse: parseGemini,
  peekSessionId: (partialOutput) => peekJsonString(partialOutput, 'session_id'),
  scan: scanGemini,
};

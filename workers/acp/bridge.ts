// The ACP bridge: how teamline drives any Agent Client Protocol agent as a worker (`"adapter": "acp"`).
// The backend runs this program as the attempt's process (headless or in a tmux pane, fenced like
// any agent); it starts the agent (`command` and `args` of its config, in ACP mode) as its child and
// is its client through the official SDK: initialize, session/new in the attempt's folder with the
// team tools as its MCP server, one session/prompt with the stage's prompt (then one per batch of
// messages `team say` sent the task that the agent did not read with its tools). What the session says
// becomes the attempt's output, one JSON object a line (workers/adapters/acp.ts reads it): message
// chunks, tool calls and their statuses, plan entries, usage and cost, each permission asked and the
// answer given. Permissions are answered from the stage's level (read; edit; run) and never for a
// path outside the attempt's folders; the client's file methods keep to the same folders and level;
// no terminal is offered (the agent runs commands with its own tools, inside the fence). The polite
// stop (SIGTERM, SIGINT) is session/cancel. A malformed message, the agent's exit mid-session or a
// request for a path outside the folders ends the attempt with a line that says which.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { leadInside } from '../../src/sys/inside.js';
import { writeFileInside } from '../../src/sys/safe-write.js';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION, RequestError, type ClientContext, type PermissionOption, type PromptResponse, type RequestPermissionRequest, type RequestPermissionResponse, type SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parseBridgeSpec } from './spec.js';
import { allowsKind, type BridgeLine } from './lines.js';

const spec = parseBridgeSpec(process.argv.slice(2));
// The attempt's working folder (its worktree): where the backend runs the bridge.
const cwd = process.cwd();
const say = (line: BridgeLine) => process.stdout.write(`${JSON.stringify(line)}\n`);

// The folders the agent may name: the attempt's working folder and the one its result file is in.
const roots = [cwd, dirname(spec.resultFile)];

// Where a path the agent named really leads, and the folder of the two it stays in; none when it
// leads out of both (src/sys/inside.ts: through links, a folder still to be made judged by the nearest
// that exists, a link to nothing refused).
function placeOf(path: string): { root: string; real: string } | undefined {
  if (!isAbsolute(path)) return undefined;
  for (const root of roots) {
    try {
      // The folder itself (opencode names the result's folder when it asks to reach it).
      if (existsSync(path) && realpathSync(path) === realpathSync(root)) return { root, real: realpathSync(root) };
      const lead = leadInside(root, path);
      if (lead.ok) return { root, real: lead.real };
    } catch {
      // A folder on the way that cannot be read: not inside this one.
    }
  }
  return undefined;
}
const inside = (path: string) => placeOf(path) !== undefined;

// Whether the paths are only the attempt's result file (and its folder): written at every level, as
// the protocol asks for it.
const resultFile = placeOf(spec.resultFile)?.real ?? spec.resultFile;
const resultFolder = dirname(resultFile);
const onlyResult = (paths: string[]) => {
  const reals = paths.map((path) => placeOf(path)?.real);
  return reals.includes(resultFile) && reals.every((real) => real === resultFile || real === resultFolder);
};

let broken: string | undefined;
let sessionId: string | undefined;
let context: ClientContext | undefined;

// The attempt fails with `why`: said once, the session cancelled, the agent stopped.
function breakWith(why: string): void {
  if (broken) return;
  broken = why;
  say({ acp: 'error', message: why });
  if (context && sessionId) void context.notify(methods.agent.session.cancel, { sessionId }).catch(() => undefined);
  setTimeout(() => stopAgent('SIGTERM'), 500).unref();
}

// In a process group of its own: the runtime's polite stop (a signal to the attempt's group) reaches
// the bridge alone, which turns it into session/cancel. The agent carries the attempt's TEAM_* marker,
// so the sweep of an attempt's escapees still finds it should the bridge be killed outright.
const agent = spawn(spec.command, spec.args, { cwd, stdio: ['pipe', 'pipe', 'inherit'], env: process.env, detached: true });
let agentExit: string | undefined;
agent.on('error', (error) => breakWith(`the ACP agent ${spec.command} could not start: ${error.message}`));
agent.on('exit', (code, signal) => {
  agentExit = signal ? `killed by ${signal}` : `exited ${code}`;
});

// Signals the agent's process group (the agent and what it started); nothing once it is gone.
function stopAgent(signal: NodeJS.Signals): void {
  if (agent.pid === undefined || agent.exitCode !== null || agent.signalCode !== null) return;
  try {
    process.kill(-agent.pid, signal);
  } catch {
    // Gone meanwhile.
  }
}

// What goes to the agent, watched for the SDK's answer to a line of the agent's that was no JSON-RPC message.
const toAgent = Writable.toWeb(agent.stdin) as WritableStream<Uint8Array>;
const decoder = new TextDecoder();
const watched = new WritableStream<Uint8Array>({
  async write(chunk) {
    const text = decoder.decode(chunk);
    if (/"id":null/.test(text) && /"code":-32(700|600)/.test(text)) breakWith(`the ACP agent broke the protocol: it wrote a line that is not a JSON-RPC message (${/-32700/.test(text) ? 'not JSON' : 'not a request, a response or a notification'})`);
    const writer = toAgent.getWriter();
    try {
      await writer.write(chunk);
    } finally {
      writer.releaseLock();
    }
  },
  close: () => toAgent.close(),
  abort: (reason) => toAgent.abort(reason),
});
const stream = ndJsonStream(watched, Readable.toWeb(agent.stdout) as ReadableStream<Uint8Array>);

// The option that says yes (once) or no (once), as the agent offered them.
function pick(options: readonly PermissionOption[], allow: boolean): PermissionOption | undefined {
  const kinds = allow ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of kinds) {
    const option = options.find((o) => o.kind === kind);
    if (option) return option;
  }
  return undefined;
}

function answerPermission(params: RequestPermissionRequest): RequestPermissionResponse {
  const { toolCall } = params;
  const tool = toolCall.title ?? toolCall.toolCallId;
  const kind = toolCall.kind ?? 'other';
  const paths = (toolCall.locations ?? []).map((l) => l.path);
  const outside = paths.filter((path) => !inside(path));
  const byLevel = allowsKind(spec.permission, kind);
  const allow = outside.length === 0 && (byLevel || onlyResult(paths));
  const why = outside.length > 0 ? `${outside[0]} is outside the attempt's folder` : byLevel ? `${spec.stage} may ${spec.permission}` : allow ? "the attempt's result file" : `${spec.stage} may only ${spec.permission}: not ${kind}`;
  const option = pick(params.options, allow);
  say({ acp: 'permission', tool, kind, answer: allow ? 'allow' : 'reject', why });
  if (outside.length > 0) breakWith(`the ACP agent asked to ${kind} ${outside[0]}, outside the attempt's folder (${roots.join(', ')}): refused`);
  return option ? { outcome: { outcome: 'selected', optionId: option.optionId } } : { outcome: { outcome: 'cancelled' } };
}

// A path the client's file methods take: inside the folders, or the request fails (and the attempt with it).
function checkedPath(path: string, what: string): { root: string; real: string } {
  const place = placeOf(path);
  if (place) return place;
  breakWith(`the ACP agent asked the client to ${what} ${path}, outside the attempt's folder (${roots.join(', ')}): refused`);
  throw RequestError.invalidParams(undefined, `${path} is outside the attempt's folder`);
}

function tell(update: SessionUpdate): void {
  switch (update.sessionUpdate) {
    case 'agent_message_chunk':
      if (update.content.type === 'text') say({ acp: 'message', text: update.content.text });
      return;
    case 'agent_thought_chunk':
      say({ acp: 'thought' });
      return;
    case 'tool_call':
      say({ acp: 'tool', id: update.toolCallId, title: update.title, ...(update.kind && { kind: update.kind }), status: update.status ?? 'pending' });
      return;
    case 'tool_call_update': {
      // A failed call's own words (its text content), short: what the agent was told went wrong.
      const said = update.status === 'failed' ? (update.content ?? []).flatMap((c) => (c.type === 'content' && c.content.type === 'text' ? [c.content.text] : [])).join(' ').slice(0, 300) : '';
      say({ acp: 'tool', id: update.toolCallId, ...(update.title && { title: update.title }), ...(update.kind && { kind: update.kind }), ...(update.status && { status: update.status }), ...(said && { error: said }) });
      return;
    }
    case 'plan':
      say({ acp: 'plan', entries: update.entries.map((e) => ({ content: e.content, status: e.status })) });
      return;
    case 'usage_update':
      say({ acp: 'usage', used: update.used, size: update.size, ...(update.cost && { cost: { amount: update.cost.amount, currency: update.cost.currency } }) });
      return;
    default:
      return;
  }
}

const app = client({ name: 'teamline' })
  .onNotification(methods.client.session.update, ({ params }) => tell(params.update))
  .onRequest(methods.client.session.requestPermission, ({ params }) => answerPermission(params))
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    const { real } = checkedPath(params.path, 'read');
    // A file that is not there is ACP's resource_not_found (the agent takes it for a new file).
    if (!existsSync(real)) throw RequestError.resourceNotFound(params.path);
    const text = readFileSync(real, 'utf8');
    if (params.line == null && params.limit == null) return { content: text };
    const lines = text.split('\n');
    const from = Math.max(0, (params.line ?? 1) - 1);
    return { content: lines.slice(from, params.limit == null ? undefined : from + params.limit).join('\n') };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    const { root } = checkedPath(params.path, 'write');
    if (spec.permission === 'read' && !onlyResult([params.path])) {
      say({ acp: 'permission', tool: `write ${params.path}`, kind: 'edit', answer: 'reject', why: `${spec.stage} may only read` });
      throw RequestError.invalidParams(undefined, `${spec.stage} may only read: no file is written`);
    }
    // Its folders made as needed, through no link that leads out (src/sys/safe-write.ts).
    writeFileInside({ dir: root, name: "the attempt's folder" }, params.path, params.content);
    return {};
  });

// The polite stop: the turn is cancelled; the agent gets a moment to end it, then the signal.
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return stopAgent('SIGKILL');
    stopping = true;
    say({ acp: 'stopping', signal });
    if (context && sessionId) void context.notify(methods.agent.session.cancel, { sessionId }).catch(() => undefined);
    setTimeout(() => stopAgent('SIGTERM'), 2_000).unref();
  });
}

async function run(ctx: ClientContext): Promise<void> {
  context = ctx;
  const init = await ctx.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: spec.files, writeTextFile: spec.files && spec.permission !== 'read' }, terminal: false },
    clientInfo: { name: 'teamline', version: spec.version },
  });
  // An agent that offers sign-in methods is signed in with the one its config names (an API key's, say).
  if (spec.authMethod !== undefined) {
    if (!(init.authMethods ?? []).some((m) => m.id === spec.authMethod)) throw new Error(`the ACP agent offers no sign-in method ${spec.authMethod} (it offers: ${(init.authMethods ?? []).map((m) => m.id).join(', ') || 'none'})`);
    await ctx.request(methods.agent.authenticate, { methodId: spec.authMethod });
  }
  const session = await ctx.request(methods.agent.session.new, { cwd, additionalDirectories: spec.directories, mcpServers: spec.teamServer ? [{ name: 'team', command: spec.teamServer.command, args: spec.teamServer.args, env: [] }] : [] });
  sessionId = session.sessionId;
  say({ acp: 'session', sessionId, agent: init.agentInfo?.name ?? spec.command });
  // An agent whose session starts in a read-only mode of its own (codex-acp's in a project it does not
  // trust) could not do a stage that edits or runs, however teamline answers its questions: such a
  // session is moved to the agent's mode for working in its folder, never to one that drops its sandbox.
  const mode = workingMode(session.modes ?? undefined);
  if (mode) {
    await ctx.request(methods.agent.session.setMode, { sessionId, modeId: mode.to });
    say({ acp: 'mode', from: mode.from, to: mode.to, why: `${spec.stage} may ${spec.permission}` });
  }
  const prompt = (text: string) => ctx.request(methods.agent.session.prompt, { sessionId: sessionId!, prompt: [{ type: 'text', text }] });
  let response = await prompt(readFileSync(spec.promptFile, 'utf8'));
  let tokens = tokensOf(response);
  // `team say`: what reached the task while the agent worked, and it did not read with its team tools,
  // comes as a prompt turn of its own in the same session (a few at most), before the attempt ends.
  for (let turn = 0; turn < MESSAGE_TURNS && response.stopReason === 'end_turn' && !stopping; turn++) {
    const unread = await unreadMessages();
    if (unread.length === 0) break;
    say({ acp: 'messages', count: unread.length });
    response = await prompt(messagesPrompt(unread));
    tokens = addTokens(tokens, tokensOf(response));
  }
  await inbox?.close().catch(() => undefined);
  say({ acp: 'end', stopReason: response.stopReason, ...(tokens && { tokens }) });
}

// How many prompt turns of messages one attempt takes after its own.
const MESSAGE_TURNS = 3;

// The team tools' client of the bridge itself, made at the first look at the inbox.
let inbox: McpClient | undefined;

interface Unread {
  from: string;
  task?: string;
  text: string;
  question?: boolean;
}

// The messages to the task or its worker that nobody read yet, through the team tools' team_inbox
// (which marks them read): none without the team tools, or when the inbox cannot be reached.
async function unreadMessages(): Promise<Unread[]> {
  if (!spec.teamServer) return [];
  try {
    if (!inbox) {
      inbox = new McpClient({ name: 'teamline-acp-bridge', version: spec.version });
      await inbox.connect(new StdioClientTransport({ command: spec.teamServer.command, args: spec.teamServer.args, cwd, stderr: 'ignore' }));
    }
    const result = (await inbox.callTool({ name: 'team_inbox', arguments: {} }, undefined, { timeout: 60_000 })) as { content?: Array<{ type: string; text?: string }> };
    const answer = JSON.parse(result.content?.find((c) => c.type === 'text')?.text ?? '{}') as { unread?: Unread[] };
    return Array.isArray(answer.unread) ? answer.unread : [];
  } catch (error) {
    say({ acp: 'error', message: `the team inbox could not be read: ${(error as Error).message}` });
    return [];
  }
}

// The prompt of a messages turn: who said what, and that the result is written again if the work changes.
function messagesPrompt(unread: Unread[]): string {
  const from = (m: Unread) => (m.from === 'human' ? 'the person running the team' : `${m.from}${m.task !== undefined ? ` (task ${m.task})` : ''}`);
  return [
    'Messages for you arrived while you worked:',
    '',
    ...unread.map((m) => `- from ${from(m)}${m.question ? ', a question' : ''}: ${m.text.replace(/\s+/g, ' ')}`),
    '',
    `Take them into account. If they change your work, change it, and write your result's JSON again to the file named by $TEAM_RESULT_FILE (${spec.resultFile}).`,
  ].join('\n');
}

function addTokens(a: ReturnType<typeof tokensOf>, b: ReturnType<typeof tokensOf>): ReturnType<typeof tokensOf> {
  if (!a || !b) return a ?? b;
  const cached = (a.cached ?? 0) + (b.cached ?? 0);
  return { input: a.input + b.input, output: a.output + b.output, ...(cached > 0 && { cached }) };
}

// The agents' read-only modes, and the modes that work in the session's folder under the agent's own
// sandbox and questions (codex-acp's auto, claude's acceptEdits, gemini's autoEdit), first preferred.
// Modes that drop the sandbox or every question (full-access, bypassPermissions, yolo) are never chosen.
const READ_ONLY_MODE = /^(read-?only|plan)$/i;
const WORKING_MODES = ['auto', 'acceptEdits', 'autoEdit', 'auto_edit', 'default'];

// The mode to move a session to: only when it starts read-only and the stage may edit or run.
function workingMode(modes: { currentModeId: string; availableModes: Array<{ id: string }> } | undefined): { from: string; to: string } | undefined {
  if (!modes || spec.permission === 'read' || !READ_ONLY_MODE.test(modes.currentModeId)) return undefined;
  const to = WORKING_MODES.find((id) => modes.availableModes.some((m) => m.id === id));
  return to ? { from: modes.currentModeId, to } : undefined;
}

// The turn's tokens: ACP's usage (unstable in the protocol), else what gemini puts in the response's
// _meta (quota.token_count: input_tokens, output_tokens); none when the agent tells neither.
function tokensOf(response: PromptResponse): { input: number; output: number; cached?: number } | undefined {
  const usage = response.usage;
  if (usage) return { input: usage.inputTokens, output: usage.outputTokens, ...(usage.cachedReadTokens ? { cached: usage.cachedReadTokens } : {}) };
  const count = (response._meta?.quota as { token_count?: { input_tokens?: unknown; output_tokens?: unknown } } | undefined)?.token_count;
  const whole = (n: unknown) => (typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined);
  const input = whole(count?.input_tokens);
  const output = whole(count?.output_tokens);
  return input !== undefined && output !== undefined ? { input, output } : undefined;
}

const exited = new Promise<void>((done) => agent.on('exit', () => done()));
const closed = new Promise<never>((_, reject) => {
  agent.on('close', () => reject(new Error(`the ACP agent ${agentExit ?? 'ended'} before the prompt turn ended`)));
});

try {
  await Promise.race([app.connectWith(stream, run), closed]);
} catch (error) {
  // The connection closes as the agent exits: its exit is the cause to tell, once it is known.
  if (!(error instanceof RequestError)) await Promise.race([exited, new Promise((done) => setTimeout(done, 1_000).unref())]);
  if (!broken) breakWith(error instanceof RequestError ? `the ACP agent answered with an error: ${error.message}${error.data ? ` (${JSON.stringify(error.data).slice(0, 300)})` : ''}` : agentExit !== undefined ? `the ACP agent ${agentExit} before the prompt turn ended` : (error as Error).message);
}
stopAgent('SIGTERM');
process.exitCode = broken ? 1 : 0;
setTimeout(() => {
  stopAgent('SIGKILL');
  process.exit();
}, 2_000).unref();

// `team acp`: teamline as an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains,
// Neovim, Emacs) and any ACP client, through the official SDK's agent side. A session is a project
// folder (session/new's cwd); a prompt starts a run there as the command line would — `3:executor
// add input validation to the API`, `ralph fix the flaky test`, or a bare task — by running `team`
// itself, so the run is an ordinary one (`team status`, `watch`, `report`, `land` see it). While it
// goes, the run is read from its store (its fold, as `team wait` reads it) and told as the session's
// updates: the tasks as plan entries with their statuses, each attempt as a tool call (its title,
// status and evidence), each handoff and the end's summary as the agent's messages, the spend as usage.
// A worker's question to the lead and a stop for a decision are session/request_permission asks.
// session/cancel is `team cancel` (the run's own process is asked to cancel).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION, RequestError, type AgentContext, type PlanEntry, type PromptResponse, type SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { openStore } from '../store/open.js';
import { withStore, type RunStore } from '../store/types.js';
import type { RunView } from '../log/fold/fold.js';
import type { TeamMessage } from '../log/fold/team.js';
import { openQuestions } from '../views/team-lines.js';
import { writeFileInside } from '../sys/safe-write.js';
import { readVersion } from '../sys/version.js';
import { EXIT } from '../sys/errors.js';
import { parseFlags } from './args/args.js';
import { FLAGS, PROJECT_FLAGS } from './args/flags.js';
import { openProject } from './args/project.js';

// How often the run's log is read while it goes.
const POLL_MS = 250;

interface Session {
  cwd: string;
  run?: ChildProcess;
  cancelled: boolean;
  /** The run this session started last (or, loaded, the one it had): a `resume` prompt goes on with it. */
  runId?: string;
  /** What the client was told of the session's runs, so that nothing is told twice. */
  told?: Told;
}

// Where each session's runs are kept (a session loaded later goes on with its last run).
const SESSIONS_FILE = '.team/acp-sessions.json';

function readSessions(cwd: string): Record<string, string> {
  try {
    const parsed = JSON.parse(readFileSync(resolve(cwd, SESSIONS_FILE), 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};
  } catch {
    return {};
  }
}

// Records the session's run, for a session/load later (a write that fails only loses that).
function rememberRun(cwd: string, sessionId: string, runId: string): void {
  try {
    writeFileInside({ dir: cwd, name: 'the project' }, resolve(cwd, SESSIONS_FILE), `${JSON.stringify({ ...readSessions(cwd), [sessionId]: runId }, null, 2)}\n`);
  } catch {
    // A session that cannot be recorded is still served; only its later load will not find the run.
  }
}

// The prompt `resume` (or `go on`), with flags: the session's run goes on (`team resume --run ID …`).
function resumePrompt(text: string, runId: string | undefined): string[] | undefined {
  const found = /^\s*(?:resume|go on)\b(.*)$/is.exec(text);
  if (!found || runId === undefined) return undefined;
  return ['resume', '--run', runId, ...(found[1]!.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ''))];
}

// The `team` arguments a prompt stands for, as its command line reads: `N:role` or `ralph` first when
// given, then the task's words (quotes keep words together), then any flags from the first `--word`
// on (`3:executor add input validation --agent codex`). A prompt of the task alone is taken whole.
export function promptArgs(text: string): string[] {
  const words = splitWords(text.trim());
  const head = words.length > 1 && /^(\d{1,2}:[A-Za-z][\w-]*|ralph)$/.test(words[0]!) ? [words.shift()!] : [];
  const flagsAt = words.findIndex((word) => /^--[a-z]/.test(word));
  if (head.length === 0 && flagsAt < 0) return [text.trim()];
  const task = (flagsAt < 0 ? words : words.slice(0, flagsAt)).join(' ');
  return [...head, ...(task ? [task] : []), ...(flagsAt < 0 ? [] : words.slice(flagsAt))];
}

// Words split at white space, "double" or 'single' quotes keeping one together (the quotes dropped).
function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

export async function acpCommand(argv: string[]): Promise<number> {
  parseFlags(argv, FLAGS.acp, 'team acp');
  const sessions = new Map<string, Session>();
    const app = agent({ name: 'teamline' })
    .onRequest(methods.agent.initialize, () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true, promptCapabilities: { image: false, audio: false, embeddedContext: false } },
      agentInfo: { name: 'teamline', version: readVersion() },
      authMethods: [],
    }))
    .onRequest(methods.agent.session.new, ({ params }) => {
      const sessionId = `teamline-${randomUUID()}`;
      sessions.set(sessionId, { cwd: params.cwd, cancelled: false });
      return { sessionId };
    })
    // A session loaded again: its run is told as it stands (tasks, attempts, handoffs, where it is), and
    // a `resume` prompt goes on with it as `team resume` does.
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      const runId = readSessions(params.cwd)[params.sessionId];
      if (runId === undefined) throw RequestError.resourceNotFound(`${params.sessionId} in ${params.cwd}`);
      const update = (u: SessionUpdate) => client.notify(methods.client.session.update, { sessionId: params.sessionId, update: u }).catch(() => undefined);
      const told = new Told(update, params.cwd);
      sessions.set(params.sessionId, { cwd: params.cwd, cancelled: false, runId, told });
      const project = openProject(parseFlags(['--cwd', params.cwd], PROJECT_FLAGS, 'team acp'), { readsStore: true, readOnly: true });
      const store = await openStore(project, undefined, 'acp');
      await withStore(store, async () => {
        const { view } = await store.view(runId, params.cwd);
        await told.view(view);
        const ended = view.status === 'completed' || view.status === 'failed' || view.status === 'cancelled';
        await told.message(`run ${runId} is ${view.status}${ended ? '' : ': prompt `resume` (with flags such as --budget-usd 5) to go on with it'}`);
      });
      return {};
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (!session?.run || session.cancelled) return;
      session.cancelled = true;
      // The run's own process takes SIGINT as `team cancel`: it stops its workers and records the cancel.
      session.run.kill('SIGINT');
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw RequestError.invalidParams(undefined, `no session ${params.sessionId}`);
      if (session.run) throw RequestError.invalidRequest(undefined, 'this session runs a team already: wait for its end, or cancel it');
      const text = params.prompt.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
      if (!text.trim()) throw RequestError.invalidParams(undefined, 'the prompt names no task: "3:executor add input validation to the API", "ralph …", or the task alone');
      return runTeam(session, params.sessionId, resumePrompt(text, session.runId) ?? promptArgs(text), client);
    });
  const connection = app.connect(ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
  await connection.closed;
  // The client went away: runs it started are asked to cancel, as a closed terminal would.
  for (const session of sessions.values()) if (session.run && session.run.exitCode === null) session.run.kill('SIGINT');
  return 0;
}

// Runs `team <args>` in the session's folder and tells its run as the session's updates; the turn
// ends with the run. A run that stops for a decision (exit 4: its budget spent, a quota, attempts
// interrupted) is a session/request_permission ask: go on (`team resume` with what the decision
// needs), and the run is followed again in the same turn; or leave it stopped.
async function runTeam(session: Session, sessionId: string, args: string[], client: AgentContext): Promise<PromptResponse> {
  // The run is read from its store (the files, or team.store's PostgreSQL), as `team wait` reads it.
  const project = openProject(parseFlags(['--cwd', session.cwd], PROJECT_FLAGS, 'team acp'), { readsStore: true, readOnly: true });
  const store = await openStore(project, undefined, 'acp');
  return withStore(store, async () => {
    const update = (u: SessionUpdate) => client.notify(methods.client.session.update, { sessionId, update: u }).catch(() => undefined);
    // A resume goes on telling the run the session was told of; another run is told from its start.
    const told = args[0] === 'resume' && session.told ? session.told : (session.told = new Told(update, session.cwd));
    let round = await followTeam(session, sessionId, args, client, store, told);
    while (round.code === EXIT.decision && !session.cancelled && round.runId !== undefined) {
      const next = await decide(client, sessionId, round.runId, (await store.view(round.runId, session.cwd)).view, round.summary);
      if (!next) break;
      round = await followTeam(session, sessionId, next, client, store, told);
    }
    const cancelled = session.cancelled;
    session.cancelled = false;
    const usage = told.usage();
    return { stopReason: cancelled ? 'cancelled' : 'end_turn', ...(usage && { usage }) };
  });
}

// The `team resume` a stopped run's decision needs: a spent budget raised to twice what it allowed
// (or spent), interrupted attempts retried, else (a quota back) the run resumed as it is.
export function resumeArgs(runId: string, view: Pick<RunView, 'spend' | 'tasks'>): string[] {
  const { budget, spentUsd, spentTokens, exceeded } = view.spend;
  const args = ['resume', '--run', runId];
  if (exceeded !== undefined && budget) {
    if (budget.usd !== undefined && spentUsd >= budget.usd) args.push('--budget-usd', String(Math.ceil(Math.max(spentUsd, budget.usd) * 200) / 100));
    if (budget.tokens !== undefined && spentTokens >= budget.tokens) args.push('--budget-tokens', String(Math.ceil(Math.max(spentTokens, budget.tokens) * 2)));
    if (args.length > 3) return args;
  }
  if (view.tasks.some((t) => t.status === 'interrupted')) args.push('--retry-interrupted');
  return args;
}

// Asks the client whether the stopped run goes on; the `team` arguments that go on, or none.
async function decide(client: AgentContext, sessionId: string, runId: string, view: RunView, summary: string): Promise<string[] | undefined> {
  const args = resumeArgs(runId, view);
  const why = /STOPPED — (.*)/.exec(summary)?.[1]?.trim() ?? 'the run stopped for a decision';
  const answer = await client.request(methods.client.session.requestPermission, {
    sessionId,
    toolCall: { toolCallId: `decision-${runId}-${Date.now()}`, title: `The run stopped for a decision: ${why}. Go on with \`team ${args.join(' ')}\`?`, kind: 'other', status: 'pending' },
    options: [
      { optionId: 'go-on', name: `Go on (team ${args.join(' ')})`, kind: 'allow_once' },
      { optionId: 'stop', name: 'Leave it stopped', kind: 'reject_once' },
    ],
  });
  return answer.outcome.outcome === 'selected' && answer.outcome.optionId === 'go-on' ? args : undefined;
}

// Asks the client a worker's question to the lead as yes or no, and says the answer to the asker
// (`team say`): at its next tool call, or in its task's next prompt.
async function askQuestion(client: AgentContext, sessionId: string, session: Session, runId: string, question: TeamMessage): Promise<void> {
  const asker = question.task ?? question.from;
  const answer = await client.request(methods.client.session.requestPermission, {
    sessionId,
    toolCall: { toolCallId: `question-${question.key}`, title: `${question.from}${question.task !== undefined ? ` (task ${question.task})` : ''} asks: ${question.text}`, kind: 'think', status: 'pending' },
    options: [
      { optionId: 'yes', name: 'Yes', kind: 'allow_once' },
      { optionId: 'no', name: 'No', kind: 'reject_once' },
    ],
  });
  if (answer.outcome.outcome !== 'selected') return;
  const word = answer.outcome.optionId === 'yes' ? 'yes' : 'no';
  const text = `The person answers ${word} to your question: ${question.text.replace(/\s+/g, ' ').slice(0, 300)}`;
  await new Promise<void>((resolve) => spawn(process.execPath, [process.argv[1]!, 'say', '--run', runId, '--to', asker, text], { cwd: session.cwd, stdio: 'ignore', env: process.env }).on('close', () => resolve()));
}

async function followTeam(session: Session, sessionId: string, args: string[], client: AgentContext, store: RunStore, told: Told): Promise<{ code: number; runId?: string; summary: string }> {
  const child = spawn(process.execPath, [process.argv[1]!, ...args, '--json'], { cwd: session.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  session.run = child;
  // A resume names its run; a new run says its id as it starts.
  let runId: string | undefined = args[0] === 'resume' ? args[args.indexOf('--run') + 1] : undefined;
  let stderr = '';
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      try {
        const event = JSON.parse(line) as { type?: string; run?: string };
        if (event.type === 'run.started' && typeof event.run === 'string') {
          runId = event.run;
          session.runId = runId;
          rememberRun(session.cwd, sessionId, runId);
        }
      } catch {
        // Not a progress line.
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = `${stderr}${chunk}`.slice(-64_000)));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  const look = async () => {
    if (runId === undefined) return;
    try {
      const { view } = await store.view(runId, session.cwd);
      await told.view(view);
      for (const question of openQuestions(view)) {
        if (told.asked.has(question.key)) continue;
        told.asked.add(question.key);
        const id = runId;
        void askQuestion(client, sessionId, session, id, question).catch(() => undefined);
      }
    } catch {
      // A log mid-write: read again at the next look.
    }
  };
  let ended = false;
  const code = await new Promise<number>((resolve) => {
    const tick = () =>
      void look().finally(() => {
        if (!ended) setTimeout(tick, POLL_MS);
      });
    tick();
    void exited.then((c) => {
      ended = true;
      resolve(c);
    });
  });
  await look();
  session.run = undefined;
  // The run's end summary; a run that never got to one is told by its exit and its last words.
  const at = stderr.lastIndexOf('── run');
  const summary = at >= 0 ? stderr.slice(at).trim() : `team ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').slice(-5).join('\n')}`;
  await told.message(summary);
  return { code, ...(runId !== undefined && { runId }), summary };
}

// What the session was told of the run so far, to tell only what changed.
class Told {
  private plan = '';
  private readonly attempts = new Map<string, string>();
  private tokens = { input: 0, output: 0, cached: 0 };
  private costUsd = 0;
  private handoffs = 0;
  /** The workers' questions to the lead already asked of the client (by message key). */
  readonly asked = new Set<string>();

  constructor(
    private readonly update: (u: SessionUpdate) => Promise<unknown>,
    private readonly cwd: string,
  ) {}

  // A message of the agent's to the client.
  async message(text: string): Promise<void> {
    await this.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  }

  async view(view: RunView): Promise<void> {
    // Each handoff as it is written, as the agent's message: what the stage decided, for the next.
    for (const handoff of view.story.handoffs.slice(this.handoffs)) {
      this.handoffs += 1;
      const text = handoff.text ?? readHandoff(this.cwd, handoff.path);
      await this.message(`${text.trimEnd()}\n\n`);
    }
    const entries: PlanEntry[] = view.tasks.map((task) => ({
      content: `${task.id}: ${task.title ?? task.id}${task.status === 'failed' || task.status === 'interrupted' ? ` (${task.status})` : ''}`,
      priority: 'medium',
      status: task.status === 'pending' ? 'pending' : task.status === 'running' ? 'in_progress' : 'completed',
    }));
    const plan = JSON.stringify(entries);
    if (entries.length > 0 && plan !== this.plan) {
      this.plan = plan;
      await this.update({ sessionUpdate: 'plan', entries });
    }
    const tokens = { input: 0, output: 0, cached: 0 };
    for (const task of view.tasks) {
      for (const a of task.attempts) {
        tokens.input += a.tokens.input;
        tokens.output += a.tokens.output;
        tokens.cached += a.tokens.cached ?? 0;
        const id = `${task.id}#${a.attempt}`;
        const was = this.attempts.get(id);
        if (was === a.status) continue;
        this.attempts.set(id, a.status);
        const status = a.status === 'running' ? 'in_progress' : a.status === 'completed' ? 'completed' : 'failed';
        const content = a.evidence ? [{ type: 'content' as const, content: { type: 'text' as const, text: a.evidence } }] : undefined;
        if (was === undefined) {
          await this.update({ sessionUpdate: 'tool_call', toolCallId: id, title: `${task.id} a${a.attempt} (${a.stage}, ${a.agent}${a.worker ? ` on ${a.worker}` : ''})`, kind: 'execute', status, ...(content && a.status !== 'running' && { content }) });
        } else {
          await this.update({ sessionUpdate: 'tool_call_update', toolCallId: id, status, ...(content && { content }) });
        }
      }
    }
    this.tokens = tokens;
    if (view.spend.spentUsd !== this.costUsd) {
      this.costUsd = view.spend.spentUsd;
      await this.update({ sessionUpdate: 'usage_update', used: tokens.input + tokens.output, size: 0, cost: { amount: this.costUsd, currency: 'USD' } });
    }
  }

  usage(): PromptResponse['usage'] | undefined {
    const { input, output, cached } = this.tokens;
    if (input + output === 0) return undefined;
    return { inputTokens: input, outputTokens: output, totalTokens: input + output, ...(cached > 0 && { cachedReadTokens: cached }) };
  }
}

// A handoff's text from its file (relative to the project, as the log names it); a line that says so when it cannot be read.
function readHandoff(cwd: string, path: string): string {
  try {
    return readFileSync(resolve(cwd, path), 'utf8');
  } catch {
    return `(the handoff ${path} could not be read)`;
  }
}

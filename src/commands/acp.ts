// `team acp`: teamline as an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains,
// Neovim, Emacs) and any ACP client, through the official SDK's agent side. A session is a project
// folder (session/new's cwd); a prompt starts a run there as the command line would — `3:executor
// add input validation to the API`, `ralph fix the flaky test`, or a bare task — by running `team`
// itself, so the run is an ordinary one (`team status`, `watch`, `report`, `land` see it). While it
// goes, the run is read from its store (its fold, as `team wait` reads it) and told as the session's
// updates: the tasks as plan entries with their statuses, each attempt as a tool call (its title,
// status and evidence), the end's summary as the agent's message, the spend as usage.
// session/cancel is `team cancel` (the run's own process is asked to cancel).
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION, RequestError, type AgentContext, type PlanEntry, type PromptResponse, type SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { openStore } from '../store/open.js';
import { withStore, type RunStore } from '../store/types.js';
import type { RunView } from '../log/fold/fold.js';
import { readVersion } from '../sys/version.js';
import { parseFlags } from './args/args.js';
import { FLAGS, PROJECT_FLAGS } from './args/flags.js';
import { openProject } from './args/project.js';

// How often the run's log is read while it goes.
const POLL_MS = 250;

interface Session {
  cwd: string;
  run?: ChildProcess;
  cancelled: boolean;
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
  let next = 0;
  const app = agent({ name: 'teamline' })
    .onRequest(methods.agent.initialize, () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false, promptCapabilities: { image: false, audio: false, embeddedContext: false } },
      agentInfo: { name: 'teamline', version: readVersion() },
      authMethods: [],
    }))
    .onRequest(methods.agent.session.new, ({ params }) => {
      next += 1;
      const sessionId = `teamline-${process.pid}-${next}`;
      sessions.set(sessionId, { cwd: params.cwd, cancelled: false });
      return { sessionId };
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
      return runTeam(session, params.sessionId, promptArgs(text), client);
    });
  const connection = app.connect(ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
  await connection.closed;
  // The client went away: runs it started are asked to cancel, as a closed terminal would.
  for (const session of sessions.values()) if (session.run && session.run.exitCode === null) session.run.kill('SIGINT');
  return 0;
}

// Runs `team <args>` in the session's folder and tells its run as the session's updates; the turn
// ends with the run (or the stop for a decision).
async function runTeam(session: Session, sessionId: string, args: string[], client: AgentContext): Promise<PromptResponse> {
  // The run is read from its store (the files, or team.store's PostgreSQL), as `team wait` reads it.
  const project = openProject(parseFlags(['--cwd', session.cwd], PROJECT_FLAGS, 'team acp'), { readsStore: true, readOnly: true });
  const store = await openStore(project, undefined, 'acp');
  return withStore(store, () => followTeam(session, sessionId, args, client, store));
}

async function followTeam(session: Session, sessionId: string, args: string[], client: AgentContext, store: RunStore): Promise<PromptResponse> {
  const update = (u: SessionUpdate) => client.notify(methods.client.session.update, { sessionId, update: u }).catch(() => undefined);
  const child = spawn(process.execPath, [process.argv[1]!, ...args, '--json'], { cwd: session.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  session.run = child;
  let runId: string | undefined;
  let stderr = '';
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      try {
        const event = JSON.parse(line) as { type?: string; run?: string };
        if (event.type === 'run.started' && typeof event.run === 'string') runId = event.run;
      } catch {
        // Not a progress line.
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = `${stderr}${chunk}`.slice(-64_000)));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  const told = new Told(update);
  const look = async () => {
    if (runId === undefined) return;
    try {
      await told.view((await store.view(runId, session.cwd)).view);
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
  const text = at >= 0 ? stderr.slice(at).trim() : `team ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').slice(-5).join('\n')}`;
  await update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
  const cancelled = session.cancelled;
  session.cancelled = false;
  const usage = told.usage();
  return { stopReason: cancelled ? 'cancelled' : 'end_turn', ...(usage && { usage }) };
}

// What the session was told of the run so far, to tell only what changed.
class Told {
  private plan = '';
  private readonly attempts = new Map<string, string>();
  private tokens = { input: 0, output: 0, cached: 0 };
  private costUsd = 0;

  constructor(private readonly update: (u: SessionUpdate) => Promise<unknown>) {}

  async view(view: RunView): Promise<void> {
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

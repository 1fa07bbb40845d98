// The writer's side of a tool call: checks it (the call file is the agent's: hostile), makes the
// event it is recorded as and the answer the agent gets, from the fold of the durable log. Every
// answer carries the caller's unread messages and a shutdown request, when there is one.
import { rewriteFile, writeFileAtomic } from '../sys/atomic.js';
import type { FoldState } from '../log/fold/fold.js';
import type { NewEvent } from '../log/schema.js';
import { unreadFor } from '../log/fold/team.js';
import { LIMITS, validateProjectPath } from '../log/guards.js';
import { judgeResult } from '../domain/result.js';
import { recipientProblem } from './recipient.js';
import { teamTextProblem } from './text.js';
import type { Stage } from '../../workers/types.js';
import type { CallAnswer, ToolCall } from './calls.js';
import { parseToolArgs, type ToolName } from './tools.js';

// The attempt a call comes from.
export interface CallSite {
  task: string;
  attempt: number;
  worker: string;
  stage: Stage;
  /** Where the attempt works (the project, or its worktree): reserved files and artifacts are in it. */
  workDir: string;
  attemptDir: string;
  resultFile: string;
}

export interface HandledCall {
  /** What the call is recorded as (none for a call refused). */
  event?: NewEvent;
  answer: CallAnswer;
  /** What follows once the event is durable: the result file of team_done, the progress mark. */
  after?: () => void;
}

type Work = { event?: NewEvent; answer: Record<string, unknown>; after?: () => void } | { refused: string };

// The event and answer of one call; `key` is the event's idempotency key.
export function handleCall(st: Readonly<FoldState>, site: CallSite, call: ToolCall, key: string): HandledCall {
  const args = parseToolArgs(call.tool as ToolName, call.args);
  const work: Work = args.ok ? TOOL_WORK[call.tool as ToolName](st, site, args.args, key) : { refused: args.reason };
  const unread = unreadFor(st.team, site.worker, site.task);
  const shutdown = st.team.shutdowns.get(`${site.task}#${site.attempt}`);
  const extra = {
    ...(unread.messages.length > 0 && { unread: unread.messages.map((m) => ({ from: m.from, ...(m.task !== undefined && { task: m.task }), text: m.text, at: m.at, ...(m.question && { question: true }) })) }),
    ...(shutdown && { shutdown: `${shutdown.by} asks you to stop: finish now with team_done (what is done) or team_fail` }),
  };
  if ('refused' in work) return { answer: { ok: false, answer: { error: work.refused, ...extra } } };
  const event = work.event && ({ ...work.event, read_through: unread.through } as NewEvent);
  return { event, answer: { ok: true, answer: { ...work.answer, ...extra } }, after: work.after };
}

const ref = (site: CallSite, key: string) => ({ key, task_id: site.task, attempt: site.attempt, worker: site.worker });

const TOOL_WORK: Record<ToolName, (st: Readonly<FoldState>, site: CallSite, args: Record<string, unknown>, key: string) => Work> = {
  team_tasks: (st, site, _, key) => ({
    event: { event: 'team_looked', ...ref(site, key), tool: 'team_tasks' },
    answer: { tasks: [...st.tasks.values()].filter((t) => st.current.has(t.id) || st.current.size === 0).map((t) => ({ id: t.id, title: st.titles[t.id] ?? t.title ?? '', status: t.attempts.at(-1)?.status ?? 'pending', owner: st.assigned.get(t.id) ?? null, blockedBy: st.team.blockedBy.get(t.id) ?? [], ...(st.team.files?.has(t.id) && { files: st.team.files.get(t.id) }) })) },
  }),
  team_inbox: (_, site, __, key) => ({ event: { event: 'team_looked', ...ref(site, key), tool: 'team_inbox' }, answer: {} }),
  team_message: (st, site, args, key) => {
    const to = args.to as string;
    const text = args.text as string;
    const problem = teamTextProblem(text, 'text') ?? (to === site.worker || to === site.task ? 'to: not to yourself' : recipientProblem(st, to));
    if (problem) return { refused: problem };
    return { event: { event: 'team_message', key, from: site.worker, task_id: site.task, attempt: site.attempt, to, text, ...(args.question === true && { question: true }) }, answer: { sent: to } };
  },
  team_progress: (_, site, args, key) => {
    const problem = teamTextProblem(args.text as string, 'text');
    if (problem) return { refused: problem };
    return { event: { event: 'team_progress', ...ref(site, key), text: args.text as string }, answer: { noted: true }, after: () => rewriteFile(site.attemptDir, 'progress', `${args.text as string}\n`) };
  },
  team_reserve: (st, site, args, key) => {
    let files: string[];
    try {
      files = [...new Set((args.files as string[]).map((f) => validateProjectPath(site.workDir, f, 'files')))];
    } catch (error) {
      return { refused: (error as Error).message };
    }
    const held = heldBy(st, site, files);
    return { event: { event: 'team_reserved', ...ref(site, key), files, held }, answer: { reserved: files, ...(held.length > 0 && { alreadyReserved: held.map((h) => ({ file: h.file, by: h.worker, task: h.task_id })) }) } };
  },
  team_done: (_, site, args, key) => finish(site, args, key, 'completed'),
  team_fail: (_, site, args, key) => finish(site, args, key, 'failed'),
};

// The files another live attempt reserved.
function heldBy(st: Readonly<FoldState>, site: CallSite, files: string[]): Array<{ file: string; worker: string; task_id: string }> {
  const wanted = new Set(files);
  const held = new Map<string, { file: string; worker: string; task_id: string }>();
  for (const r of st.team.reservations) {
    if (!wanted.has(r.file) || r.task === site.task || held.has(r.file)) continue;
    const attempt = st.tasks.get(r.task)?.attempts.find((a) => a.attempt === r.attempt);
    if (attempt && attempt.status !== 'running') continue;
    held.set(r.file, { file: r.file, worker: r.worker, task_id: r.task });
  }
  return [...held.values()];
}

// team_done and team_fail: the result, judged exactly as a result file is, then written as one.
function finish(site: CallSite, args: Record<string, unknown>, key: string, status: 'completed' | 'failed'): Work {
  const text = JSON.stringify({ status, ...args });
  if (text.length > LIMITS.resultBytes) return { refused: 'the result is too big: write it to the result file instead' };
  const judged = judgeResult(site.stage, { text }, '', site.workDir);
  if (!judged.ok) return { refused: judged.reason };
  return {
    event: { event: 'team_result', ...ref(site, key), status },
    answer: { recorded: status, note: 'your result is recorded: end now' },
    after: () => writeFileAtomic(site.attemptDir, 'result.json', text, { fsync: true }),
  };
}

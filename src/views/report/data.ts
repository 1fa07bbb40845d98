// What `team report` shows, from a run's log (files or PostgreSQL): attempts, stage bands, usage, handoffs, events.
import { basename } from 'node:path';
import { readHandoffs } from '../../../handoffs/read.js';
import type { RunFiles } from '../../log/read.js';
import type { RunPaths } from '../../log/write.js';
import type { RunView } from '../../log/fold/fold.js';
import { attentionLines, notDrivenLine } from '../status/render.js';
import { currentRoster } from '../../log/reach.js';
import { teamLines } from '../team-lines.js';
import { prefixFor } from '../../../machines/plan.js';
import type { GateRun as ReportGate, Marker as ReportMarker, Verdict as ReportVerdict } from '../../log/fold/story.js';
import { usageTables, type ReportUsage } from './usage.js';
import { parseLogTime } from '../../log/time.js';
import { statusWord } from '../watch/lanes.js';
import { countAttempts, describeAttemptCounts } from '../../log/fold/counts.js';

export interface ReportAttempt {
  id: string;
  task: string;
  /** The task's title as the run view holds it (the plan's; a fix task's: its defect). */
  title?: string;
  attempt: number;
  stage: string;
  agent: string;
  /** The worker that ran it; none when its worker never started (no lane is drawn for it). */
  lane?: string;
  status: string;
  start: number;
  end?: number;
  evidence: string;
  artifacts: string[];
  next: string;
  costUsd: number;
  tokens: { input: number; output: number };
  /** A later attempt of a task whose earlier attempt failed, and why it was retried. */
  retryOf?: string;
  killed: boolean;
  adopted: boolean;
  stalled: boolean;
  verdict?: ReportVerdict;
  /** The gates run before this verify task's verifier. */
  gates?: ReportGate[];
  /** A verify or review that found the work wanting (a fail or reject verdict, or a failed gate). */
  verdictFailed: boolean;
  /** Why stage routing put this task on its lane and agent (routing_decided). */
  routing?: string;
}

export interface ReportData {
  run: RunView['run'];
  /** The workers that take work now (after `team scale`, the current roster's size). */
  workers: number;
  status: string;
  stage: string;
  /** "12 attempts (8 rate-limited, 0 failed)": how the attempts ended, counted apart. */
  attemptCounts: string;
  outcome?: string;
  generatedAt: number;
  start: number;
  end: number;
  attempts: ReportAttempt[];
  bands: Array<{ stage: string; iteration: number; loop: number; start: number; end: number }>;
  markers: ReportMarker[];
  usage: ReportUsage;
  /** Said when the run is not over and nothing drives it, with the command that continues it. */
  undriven?: string;
  handoffs: Array<{ name: string; text: string }>;
  attention: string[];
  /** Stage routing: the cost mode, the model of each role, and every decision in words. */
  routing: { costMode?: string; models: Array<[string, string]>; decisions: string[] };
  events: Array<{ at: string; event: string; task: string; attempt: string; detail: string }>;
}

// What the report is made at: `now` closes what is still running (a live or crashed run); `driven`
// is whether a live process holds the run (the lock's holder, or the store's writer).
export interface ReportMoment {
  now?: number;
  driven: boolean;
}

// Builds the report's data from a run's events (files or PostgreSQL), its fold and its handoffs.
export function makeReportData(files: Pick<RunFiles, 'events'>, view: RunView, handoffs: ReportData['handoffs'], moment: ReportMoment): ReportData {
  const now = moment.now ?? Date.now();
  const times = files.events.map((e) => parseLogTime(e.at));
  const start = times[0] ?? parseLogTime(view.run.created_at);
  const end = view.endedAt !== undefined ? Math.max(...times) : Math.max(now, ...times);
  const { story } = view;
  // The gates of each verify pass, by the verify task whose verifier runs after them (as machines/steps.ts names it).
  const gatesOf: Record<string, ReportGate[]> = Object.fromEntries(Object.entries(story.gates).map(([key, gates]) => [`${prefixFor(Number(key.split(':')[0]))}verify-${key.split(':')[1]}`, gates]));
  const restarts = story.markers.filter((m) => m.kind === 'restart').map((m) => m.at);
  const attempts: ReportAttempt[] = [];
  for (const task of view.tasks) {
    for (const a of task.attempts) {
      const begun = a.startedAt ? parseLogTime(a.startedAt) : start;
      const finished = a.finishedAt ? parseLogTime(a.finishedAt) : undefined;
      const retry = task.retries.find((r) => r.attempt === a.attempt);
      const id = `${task.id}#${a.attempt}`;
      const gates = gatesOf[task.id];
      attempts.push({
        id,
        task: task.id,
        ...(task.title !== undefined && { title: task.title }),
        attempt: a.attempt,
        stage: a.stage,
        agent: a.agent,
        ...(a.worker !== undefined && { lane: a.worker }),
        status: statusWord(a),
        start: begun,
        end: finished,
        evidence: a.evidence,
        artifacts: a.artifacts,
        next: a.next,
        costUsd: a.costUsd,
        tokens: a.tokens,
        retryOf: a.attempt > 1 ? (retry?.reason ?? `attempt ${a.attempt - 1} ${task.attempts.find((p) => p.attempt === a.attempt - 1)?.status ?? 'ended'}`) : undefined,
        killed: /\bkilled\b|watchdog/i.test(a.evidence) || (a.status === 'interrupted' && !a.rateLimited),
        adopted: restarts.some((r) => r > begun && (finished === undefined || r < finished)) || /recovered after a restart/.test(a.evidence),
        stalled: a.stalled,
        ...(story.verdicts[id] && { verdict: story.verdicts[id] }),
        ...(gates && { gates }),
        verdictFailed: ['fail', 'reject'].includes(story.verdicts[id]?.verdict ?? '') || (gates ?? []).some((g) => g.exitCode !== 0),
        ...routingOf(view, task.id),
      });
    }
  }
  attempts.sort((x, y) => x.start - y.start || x.id.localeCompare(y.id));
  return {
    run: view.run,
    workers: currentRoster(view).length,
    status: view.status,
    stage: view.stage,
    attemptCounts: describeAttemptCounts(countAttempts(view.tasks)),
    outcome: view.outcome,
    generatedAt: now,
    start,
    end: Math.max(end, start + 1),
    attempts,
    bands: story.stages.map((s) => ({ stage: s.stage, iteration: s.iteration, loop: s.loop, start: parseLogTime(s.at), end: s.until === undefined ? end : parseLogTime(s.until) })),
    markers: story.markers,
    usage: usageTables(view),
    undriven: notDrivenLine(view, moment.driven),
    handoffs,
    attention: [...attentionLines(view, moment.driven), ...teamLines(view).map((line) => `team: ${line}`)],
    routing: {
      ...(view.pipeline.costMode !== undefined && { costMode: view.pipeline.costMode }),
      models: Object.entries(view.pipeline.models ?? {}),
      decisions: story.routing.map((r) => `${r.stage} (iteration ${r.iteration}, loop ${r.loop}): ${r.text}`),
    },
    events: files.events.map((e) => eventRow(e as unknown as Record<string, unknown>)),
  };
}

// The routing decisions about one task, for its bars' detail.
function routingOf(view: RunView, task: string): { routing?: string } {
  const texts = view.story.routing.filter((r) => r.task === task).map((r) => r.text);
  return texts.length === 0 ? {} : { routing: texts.join('; ') };
}


// The handoffs of a run: its folder's on this machine where it has them (a run of the files, or the
// writer's machine of a run on the store), else the texts its log holds.
export function handoffsOf(paths: RunPaths, view: Pick<RunView, 'story'>): ReportData['handoffs'] {
  const folder = folderHandoffs(paths);
  return folder.length > 0 ? folder : loggedHandoffs(view);
}

// The handoffs of a run's folder, in the order written.
export function folderHandoffs(paths: RunPaths): ReportData['handoffs'] {
  return readHandoffs(paths.handoffsDir).map((h) => ({ name: `${String(h.index).padStart(2, '0')}-${h.stage}`, text: h.text }));
}

// The handoffs the log of a PostgreSQL run holds, texts and all; an older log recorded only the file
// of the writer's machine, which the page names.
export function loggedHandoffs(view: Pick<RunView, 'story'>): ReportData['handoffs'] {
  return view.story.handoffs.map((h) => ({ name: basename(h.path).replace(/\.md$/, ''), text: h.text ?? `(not in this log: it records ${h.path}, sha256 ${h.sha256}, a file of the machine that wrote it)` }));
}

function eventRow(e: Record<string, unknown>): ReportData['events'][number] {
  const { event, at, run_id: _r, task_id, attempt, file: _f, ...rest } = e;
  const detail = JSON.stringify(rest);
  return { at: String(at), event: String(event), task: task_id === undefined ? '' : String(task_id), attempt: attempt === undefined ? '' : String(attempt), detail: detail.length > 600 ? `${detail.slice(0, 597)}...` : detail };
}

// What the live view shows, from a run's log (files or PostgreSQL) and the tail of each worker's output.log.
import { spendLines } from '../status/spend.js';
import { join } from 'node:path';
import { readRunFiles, type RunFiles } from '../../log/read.js';
import type { RunPaths } from '../../log/write.js';
import { foldRun, type RunView } from '../../log/fold/fold.js';
import { attentionLines, notDrivenLine } from '../status/render.js';
import { teamLines } from '../team-lines.js';
import { liveHolder } from '../../store/files/lock.js';
import { lastLine } from '../../sys/last-line.js';
import { attemptFacts, lanesOf, type AttemptFact, type Lane } from './lanes.js';
import { countAttempts, describeAttemptCounts } from '../../log/fold/counts.js';
import { ENDED_STATUSES, runClockMs, runStartMs } from '../../log/fold/clock.js';

// A lane and an attempt's state, as the model holds them (lanes.ts).
export type { AttemptFact, Lane };

export interface WatchModel {
  runId: string;
  mode: string;
  task: string;
  status: string;
  stage: string;
  iteration: number;
  maxIterations?: number;
  loop: number;
  maxFixLoops?: number;
  costUsd: number;
  /** Spend against the budget and the agents under a rate limit (issue 29), as lines. */
  spend?: string[];
  /** The same without the back-offs' countdown, for plain lines printed once. */
  spendFacts?: string[];
  tokens: { input: number; output: number };
  elapsedMs: number;
  /** The current tasks completed, of how many (the plan's and its fix loops'). */
  tasks: { done: number; total: number };
  /** How the attempts ended, told when one did not complete: "5 attempts (2 rate-limited, 0 failed)". */
  attemptCounts?: string;
  /** One per worker: its latest attempt. */
  lanes: Lane[];
  /** Every attempt's state, for the plain lines. */
  attempts: AttemptFact[];
  attention: string[];
  /** The team tools' lines: messages to the lead, progress notes, reservations, overlaps. */
  team?: string[];
  /** Set while the run has not ended and nothing drives it: what to say, and the command that continues it. */
  undriven?: string;
  outcome?: string;
  ended: boolean;
}


// What the live view reads of a run, from either store: the fold's input, whether a writer drives
// the run, what to say when none does, and the last line of an attempt's output (empty when not kept).
export interface WatchRead {
  read: Pick<RunFiles, 'run' | 'events' | 'approvals' | 'problems'>;
  projectDir: string;
  /** Whether anything drives the run, as `team wait` asks it (the lock's live holder, the store's writer); asked only while it has not ended. */
  live(): boolean;
  /** Why nothing drives it and the command that continues it, when so. */
  undriven: string;
  tail(task: string, attempt: number): string;
}

// The model of the run at `paths`, now, from its files.
export function loadWatchModel(paths: RunPaths, now = Date.now()): WatchModel {
  const read = readRunFiles(paths);
  return modelOf(
    {
      read,
      projectDir: paths.projectDir,
      live: () => liveHolder(paths) !== undefined,
      undriven: `\`team resume --run ${read.run.run_id}\` continues it`,
      tail: (task, attempt) => lastLine(join(paths.attemptsDir, task, `a${attempt}`, 'output.log')),
    },
    now,
  );
}

// The model of a run read from either store; an ended run's clock stops at its last event.
export function modelOf(source: WatchRead, now = Date.now()): WatchModel {
  const view = foldRun(source.read, source.projectDir);
  const ended = ENDED_STATUSES.has(view.status);
  const at = runClockMs(view, now);
  // A live orchestrator watches its own running attempts: they are not uncertain.
  const live = !ended && source.live();
  const model = toWatchModel(view, source.tail, at, live);
  if (!ended && !live && view.orchestrated) model.undriven = `nothing drives this run: ${source.undriven}`;
  return model;
}

// Builds the model from a folded view; `tail` gives each lane its last output line.
export function toWatchModel(view: RunView, tail: WatchRead['tail'], now = Date.now(), live = false): WatchModel {
  const ended = ENDED_STATUSES.has(view.status);
  const started = runStartMs(view);
  return {
    runId: view.run.run_id,
    mode: view.run.mode ?? 'team',
    task: view.run.task ?? '',
    status: view.status,
    stage: view.stage,
    iteration: view.pipeline.iteration,
    maxIterations: view.pipeline.maxIterations,
    loop: view.pipeline.loop,
    maxFixLoops: view.pipeline.maxFixLoops,
    costUsd: view.usage.run.costUsd,
    spend: spendLines(view.spend, now),
    spendFacts: spendLines(view.spend, now, false),
    tokens: view.usage.run.tokens,
    elapsedMs: Math.max(0, now - started),
    tasks: { done: view.tasks.filter((t) => view.current.has(t.id) && t.status === 'completed').length, total: view.current.size },
    ...attemptCountsOf(view),
    lanes: lanesOf(view, tail, now),
    attempts: attemptFacts(view),
    // A live run's writes in flight (temporary files) are not problems yet.
    // The run nothing drives is said in place of the footer (model.undriven), not among these.
    attention: attentionLines(live ? { ...view, problems: view.problems.filter((p) => !p.reason.startsWith('stray temporary file')) } : view, live).filter((line) => line !== notDrivenLine(view, live)),
    team: teamLines(view),
    outcome: view.outcome,
    ended,
  };
}

// The attempts' counts, once one of them did not complete (a run going right says nothing more).
function attemptCountsOf(view: RunView): { attemptCounts?: string } {
  const counts = countAttempts(view.tasks);
  return counts.failed + counts.rateLimited + counts.interrupted > 0 ? { attemptCounts: describeAttemptCounts(counts) } : {};
}

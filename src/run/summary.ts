// The final summary of a run, from its log: outcome, durations, attempts, fix loops, cost, where.
import { relative } from 'node:path';
import type { RunView } from '../log/fold/fold.js';
import type { DriveOutcome } from './drive.js';
import { describeBranches, type BranchesView } from '../isolation/view.js';
import { runSeconds } from '../log/fold/clock.js';
import { checkpointRecordOf, unwrittenCheckpointLine } from '../checkpoint/written.js';
import { countAttempts, describeAttemptCounts, plannedTaskCount } from '../log/fold/counts.js';

// Where the run's work and records are, beside its log: its branches (worktree isolation) and the
// project's checkpoint file, when there are any.
export interface WorkPlaces {
  branches?: BranchesView;
  /** The project's `.checkpoints/team.checkpoint.json`, told of only when it holds the run's record. */
  checkpointFile?: string;
  projectDir?: string;
}

// Lines for a person, and the same facts as data for --json.
export function summarize(view: RunView, outcome: DriveOutcome, runDir: string, places: WorkPlaces = {}): { lines: string[]; data: { type: string } & Record<string, unknown> } {
  const attempts = view.tasks.flatMap((t) => t.attempts.map((a) => ({ task: t.id, ...a })));
  const failed = attempts.filter((a) => a.status === 'failed');
  const counts = countAttempts(view.tasks);
  // The plan's tasks (of the iteration under way), as the outcome's "5 of 5 tasks completed" counts
  // them; the planner's, analyst's and verifier's attempts are among the attempts.
  const planned = plannedTaskCount(view);
  const seconds = runSeconds(view);
  const data = {
    type: 'summary',
    run: view.run.run_id,
    outcome: outcome.kind,
    reason: outcome.reason || view.outcome || '',
    seconds: Number(seconds.toFixed(1)),
    tasks: planned,
    attempts: attempts.length,
    failedAttempts: counts.failed,
    rateLimitedAttempts: counts.rateLimited,
    interruptedAttempts: counts.interrupted,
    fixLoops: view.pipeline.loop,
    iteration: view.pipeline.iteration,
    costUsd: Number(view.usage.run.costUsd.toFixed(6)),
    tokens: view.usage.run.tokens,
    runDir,
    ...(places.branches && { branches: places.branches }),
  };
  const lines = [
    `── run ${view.run.run_id}: ${outcome.kind.toUpperCase()}${data.reason ? ` — ${data.reason}` : ''}`,
    `   ${planned} ${planned === 1 ? 'task' : 'tasks'}, ${describeAttemptCounts(counts)}, ${view.pipeline.loop} fix loop(s)${view.run.mode === 'ralph' ? `, iteration ${view.pipeline.iteration} of ${view.pipeline.maxIterations}` : ''}, ${seconds.toFixed(1)}s`,
  ];
  if (view.usage.run.costUsd > 0 || view.usage.run.tokens.input > 0) {
    lines.push(`   cost $${view.usage.run.costUsd.toFixed(4)}, tokens ${view.usage.run.tokens.input} in / ${view.usage.run.tokens.output} out`);
    for (const [agent, totals] of Object.entries(view.usage.byAgent)) lines.push(`     ${agent}: $${totals.costUsd.toFixed(4)}, ${totals.tokens.input}/${totals.tokens.output} tokens`);
  }
  for (const a of failed.slice(0, 5)) lines.push(`   ✘ ${a.task} a${a.attempt}: ${a.evidence.slice(0, 160)}`);
  if (outcome.kind === 'failed' && view.pipeline.lastDefects.length) {
    lines.push('   last defects:');
    for (const d of view.pipeline.lastDefects.slice(0, 10)) lines.push(`     - ${d.id}: ${d.description.slice(0, 160)}`);
  }
  if (view.run.mode === 'ralph') {
    for (const it of view.iterations) {
      const tried = `tried ${it.tasks.length} task(s) (${it.tasks.slice(0, 6).join(', ')}${it.tasks.length > 6 ? ', …' : ''}) and ${it.fixLoops} fix loop(s)`;
      lines.push(`   iteration ${it.iteration}: ${tried}; ${it.outcome}${it.reasons.length ? ` — ${it.reasons.join('; ').slice(0, 200)}` : ''}`);
    }
  }
  if (places.branches) lines.push(...describeBranches(places.branches, view.run.run_id, outcome.kind).map((line) => `   ${line}`));
  if (places.checkpointFile && places.projectDir) {
    // Claimed only when the file holds this run's record: a link out of the project is never written.
    const record = checkpointRecordOf(places.projectDir, view.run.run_id);
    const shown = relative(places.projectDir, places.checkpointFile);
    if (record.state === 'written') lines.push(`   ${shown}: the run's checkpoint record, kept in the project and meant to be committed with its work`);
    const unwritten = unwrittenCheckpointLine(places.projectDir, view.run.run_id, record);
    if (unwritten) lines.push(`   needs attention: ${unwritten}`);
  }
  lines.push(`   run folder: ${runDir}`);
  return { lines, data };
}

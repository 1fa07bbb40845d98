// The fields of `team.checkpoint.json` that teamline owns, built from a run's fold and handoffs alone.
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { readHandoffs } from '../../handoffs/read.js';
import type { RunPaths } from '../log/write.js';
import type { RunView, TaskView } from '../log/fold/fold.js';

// OPCHAIN.md: key decisions are consolidated past ~20 items; recently_done holds at most 10.
const DECISIONS_KEPT = 20;
const RECENT_KEPT = 10;
const SUMMARY_MAX = 1200;

export type CheckpointStatus = 'in_progress' | 'blocked' | 'complete' | 'failed';

// A run's status as the checkpoint's: a cancelled run is `failed` (it cannot go on; skill_state says cancelled).
export function toCheckpointStatus(runStatus: string): CheckpointStatus {
  if (runStatus === 'completed') return 'complete';
  if (runStatus === 'failed' || runStatus === 'cancelled') return 'failed';
  if (runStatus === 'stopped') return 'blocked';
  return 'in_progress';
}

const ROW_STATUS: Record<string, string> = {
  completed: 'complete',
  running: 'in_progress',
  pending: 'not_started',
  failed: 'failed',
  interrupted: 'blocked',
  awaiting_approval: 'blocked',
  conflict: 'blocked',
};

// Every field teamline writes, for the run folded into `view`.
export function makeCheckpointFields(view: RunView, paths: RunPaths): Record<string, unknown> {
  const runId = view.run.run_id;
  const status = toCheckpointStatus(view.status);
  const running = view.tasks.filter((t) => t.status === 'running').map((t) => t.id);
  return {
    protocol_version: '1.1',
    skill: 'team',
    phase: view.stage,
    step: stepOf(view, running),
    status,
    progress_summary: summaryOf(view),
    progress_table: view.tasks.map((t) => ({ id: t.id, label: t.title ?? `${t.attempts[0]?.stage ?? 'task'} ${t.id}`, status: ROW_STATUS[t.status] ?? 'blocked' })),
    context_primer: { key_decisions: decisionsOf(paths.handoffsDir), generated_files: generatedFiles(view.tasks, paths.projectDir) },
    next_actions: nextActions(view, running),
    blockers: blockersOf(view),
    cost: {
      total_usd: round(view.usage.run.costUsd),
      budget_usd: 0,
      by_phase: mapCost(view.usage.byStage),
      by_model: mapCost(view.usage.byAgent),
    },
    recently_done: [...view.story.milestones].reverse().slice(0, RECENT_KEPT),
    skill_state: {
      run_id: runId,
      mode: view.run.mode,
      run_status: view.status,
      outcome: view.outcome ?? null,
      iteration: view.pipeline.iteration,
      fix_loop: view.pipeline.loop,
      tokens: view.usage.run.tokens,
      last_run: { run_id: runId, status: view.status, events: view.eventCount },
    },
  };
}

function stepOf(view: RunView, running: string[]): string {
  const parts: string[] = [];
  if (view.run.mode === 'ralph') parts.push(`iteration ${view.pipeline.iteration}`);
  if (view.pipeline.loop > 0) parts.push(`fix loop ${view.pipeline.loop}`);
  if (running.length > 0) parts.push(running.join(', '));
  if (['completed', 'failed', 'cancelled', 'stopped'].includes(view.status)) parts.push(view.status);
  return parts.join(' · ') || view.stage;
}

function summaryOf(view: RunView): string {
  const done = view.tasks.filter((t) => t.status === 'completed').length;
  const loops = view.pipeline.maxFixLoops === undefined ? '' : `, fix loop ${view.pipeline.loop} of ${view.pipeline.maxFixLoops}`;
  const iteration = view.pipeline.maxIterations === undefined ? '' : `, iteration ${view.pipeline.iteration} of ${view.pipeline.maxIterations}`;
  const end = view.outcome ? ` — ${view.outcome}` : '';
  const text = `teamline run ${view.run.run_id} (${view.run.mode}, ${view.run.workers} workers) "${view.run.task}": ${view.status} at ${view.stage}${iteration}${loops}; ${done}/${view.tasks.length} tasks completed; $${view.usage.run.costUsd.toFixed(4)}${end}`;
  return text.length > SUMMARY_MAX ? `${text.slice(0, SUMMARY_MAX - 3)}...` : text;
}


// The Decided lines of every handoff so far, newest kept when there are too many.
function decisionsOf(handoffsDir: string): string[] {
  const decided = readHandoffs(handoffsDir).flatMap((h) => {
    const line = /^- \*\*Decided\*\*:\s*(.+)$/m.exec(h.text)?.[1]?.trim();
    return line ? [`${h.stage}: ${line}`] : [];
  });
  return decided.slice(-DECISIONS_KEPT);
}

function generatedFiles(tasks: TaskView[], projectDir: string): string[] {
  const paths = tasks.flatMap((t) => t.attempts.filter((a) => a.status === 'completed').flatMap((a) => a.artifacts));
  return [...new Set(paths)].filter((p) => existsSync(isAbsolute(p) ? p : join(projectDir, p)));
}

function nextActions(view: RunView, running: string[]): Array<{ text: string }> {
  const id = view.run.run_id;
  switch (toCheckpointStatus(view.status)) {
    case 'in_progress':
      return [{ text: `Let the run go on at ${view.stage}${running.length ? ` (running: ${running.join(', ')})` : ''}; follow it with \`team watch --run ${id}\`` }];
    case 'blocked':
      return [{ text: `Decide on the interrupted attempts: \`team resume --run ${id} --retry-interrupted\` retries them, \`team cancel --run ${id}\` ends the run` }];
    case 'complete':
      return [{ text: `Review the run's handoffs and changes (\`team report --run ${id}\`)` }];
    default:
      return [{ text: `Read why the run ended (\`team report --run ${id}\`) and start a new run for what is left` }];
  }
}

function blockersOf(view: RunView): Array<Record<string, string>> {
  if (view.status !== 'stopped') return [];
  const decisions = view.tasks.filter((t) => t.status === 'interrupted' || t.status === 'running' || t.status === 'conflict');
  return decisions.map((t) => ({
    id: `decide-${t.id}`,
    description: `${t.id} attempt ${t.attempts.at(-1)?.attempt ?? 1} is ${t.status}: the run stopped for a decision${view.outcome ? ` (${view.outcome})` : ''}`,
    blocking: t.id,
    needs: 'user_decision',
    proposed_resolution: `team resume --run ${view.run.run_id} --retry-interrupted`,
  }));
}

function mapCost(totals: Record<string, { costUsd: number }>): Record<string, number> {
  return Object.fromEntries(Object.entries(totals).map(([name, t]) => [name, round(t.costUsd)]));
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

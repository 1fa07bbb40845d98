// How each event changes the fold of a run (FoldState, fold.ts): one case per event name.
import { EVENT_SCHEMAS, type TeamEvent } from '../schema.js';
import type { FoldState } from './types.js';
import { addTokens, applyReportFact, assignTask, attemptIn, emptyTotals, iterationIn, key, taskIn } from './tasks.js';
import { applyGitFact } from './git.js';
import { applyTeamFact } from './team.js';
import { endStory, enterStage, gatesKey } from './story.js';
import { describeDecision } from '../decision.js';
import { applyVerifyResult } from './verify.js';
import { applySpendFact } from './spend.js';
import { parseLogTime } from '../time.js';

const RUN_END: Record<string, string> = { run_completed: 'completed', run_failed: 'failed', run_cancelled: 'cancelled', run_stopped: 'stopped' };

// Folds one event into the state (the switch over every event name the view reads).
export function applyEvent(st: FoldState, event: TeamEvent & { file: string }): void {
  const { tasks, conflicts, terminalFiles, pipeline, iterations, usage, story } = st;
  const taskOf = (id: string) => taskIn(tasks, id);
  const attemptOf = (id: string, number: number, e: { stage?: string; agent?: string }) => attemptIn(tasks, id, number, e);
  const iterationOf = (k: number) => iterationIn(iterations, k);
  applyTeamFact(st.team, event);
  applySpendFact(st, event);
  switch (event.event) {
    case 'task_started': {
      const attempt = attemptOf(event.task_id, event.attempt, event);
      Object.assign(attempt, { stage: event.stage, agent: event.agent, startedAt: event.at, inputs: event.inputs });
      if (!terminalFiles.has(key(event.task_id, event.attempt))) attempt.status = 'running';
      st.stage = event.stage;
      break;
    }
    case 'task_finished': {
      const attempt = attemptOf(event.task_id, event.attempt, event);
      const k = key(event.task_id, event.attempt);
      const seen = terminalFiles.get(k) ?? [];
      seen.push({ status: event.status, file: event.file });
      terminalFiles.set(k, seen);
      if (seen.length > 1) {
        attempt.status = 'conflict';
        conflicts.set(k, { task: event.task_id, attempt: event.attempt, statuses: seen.map((s) => s.status), files: seen.map((s) => s.file) });
      } else {
        Object.assign(attempt, {
          status: event.status,
          finishedAt: event.at,
          artifacts: event.artifacts,
          evidence: event.evidence,
          next: event.next,
        });
      }
      break;
    }
    case 'attempt_throttled':
      // A rate limit interrupted it: told apart from the attempts that failed.
      attemptOf(event.task_id, event.attempt, {}).rateLimited = true;
      break;
    case 'task_retry':
      taskOf(event.task_id).retries.push({ attempt: event.attempt, reason: event.reason, at: event.at });
      break;
    case 'task_assigned':
      assignTask(st, event.task_id, event.worker, event.task !== undefined);
      if (event.task) st.titles[event.task_id] = event.task.title;
      break;
    case 'tasks_assigned':
      for (const task of event.tasks) {
        assignTask(st, task.task_id, task.worker, true);
        st.titles[task.task_id] = task.task.title;
        if (task.task.candidateOf !== undefined) taskOf(task.task_id).candidateOf = task.task.candidateOf;
      }
      break;
    case 'candidate_gated':
      taskOf(event.task_id).gates = event.gates.map((g) => ({ command: g.command, exitCode: g.exitCode, timedOut: g.timedOut }));
      break;
    case 'candidate_picked':
      taskOf(event.task_id).pick = { candidate: event.pick, reasons: event.reasons };
      applyGitFact(st.git, event);
      break;
    case 'attempt_spawned':
      st.handles.set(key(event.task_id, event.attempt), event.handle);
      attemptOf(event.task_id, event.attempt, {}).worker = event.worker;
      break;
    case 'attempt_taken':
      attemptOf(event.task_id, event.attempt, {}).worker = event.worker;
      applyReportFact(st.reports, event);
      break;
    case 'attempt_spend':
      applyReportFact(st.reports, event);
      break;
    case 'gate_spawned':
      st.gateGroups.push(event.handle);
      break;
    case 'attempt_stalled':
    case 'attempt_stopping':
      attemptOf(event.task_id, event.attempt, {}).stalled = true;
      applyReportFact(st.reports, event);
      break;
    case 'attempt_usage': {
      applyReportFact(st.reports, event);
      const attempt = attemptOf(event.task_id, event.attempt, event);
      const cost = event.cost_usd ?? 0;
      const tokens = event.tokens ?? { input: 0, output: 0 };
      attempt.costUsd += cost;
      attempt.tokens = addTokens(attempt.tokens, tokens);
      if (event.session_id) attempt.sessionId = event.session_id;
      for (const totals of [usage.run, (usage.byStage[event.stage] ??= emptyTotals()), (usage.byAgent[event.agent] ??= emptyTotals())]) {
        totals.costUsd += cost;
        totals.tokens = addTokens(totals.tokens, tokens);
      }
      break;
    }
    case 'stage_entered':
      st.stage = event.stage;
      pipeline.iteration = event.iteration;
      pipeline.loop = event.loop;
      enterStage(story, event);
      break;
    case 'stage_completed':
    case 'stage_skipped':
      story.milestones.push({ at: event.at, action: `${event.stage} ${event.event === 'stage_completed' ? 'completed' : 'skipped'}` });
      break;
    case 'run_started': {
      st.status = 'running';
      st.started ??= event;
      applyGitFact(st.git, event);
      pipeline.maxIterations = event.mode === 'ralph' ? event.limits.maxIterations : undefined;
      pipeline.maxFixLoops = event.limits.maxFixLoops;
      if (event.costMode !== undefined) Object.assign(pipeline, { costMode: event.costMode, models: event.models ?? {} });
      break;
    }
    case 'gates_result':
      story.gates[gatesKey(event.iteration, event.pass)] = event.gates.map(({ command, exitCode, timedOut, durationMs }) => ({ command, exitCode, timedOut, durationMs }));
      st.gateDefects = event.gates.flatMap((g, i) => (g.exitCode === 0 ? [] : [{ id: `gate-${i + 1}`, description: `\`${g.command}\` ${g.timedOut ? 'timed out' : `exited ${g.exitCode}`}` }]));
      break;
    case 'verify_result':
      // A reviewer's defects join the verifier's (stage routing: `verify-<p>.<role>`), in either order.
      applyVerifyResult(pipeline, event.task_id, event.verdict, event.defects, isReviewerAttempt(event.task_id) ? [] : st.gateDefects);
      if (!isReviewerAttempt(event.task_id)) st.gateDefects = [];
      story.verdicts[key(event.task_id, event.attempt)] = { verdict: event.verdict, defects: event.defects, reasons: [] };
      break;
    case 'review_result':
      pipeline.lastReview = { verdict: event.verdict, reasons: event.reasons, iteration: pipeline.iteration };
      story.verdicts[key(event.task_id, event.attempt)] = { verdict: event.verdict, defects: [], reasons: event.reasons };
      break;
    case 'fix_loop_started':
      iterationOf(event.iteration).fixLoops = event.loop;
      // The machine's union of the pass (with the exec tasks' own defects) is the one the fix tasks take.
      pipeline.lastDefects = event.defects;
      break;
    case 'iteration_started': {
      const ended = iterationOf(event.iteration - 1);
      const rejected = pipeline.lastReview?.verdict === 'reject' && pipeline.lastReview.iteration === ended.iteration;
      ended.outcome = rejected ? 'rejected by the architect' : 'verify failed with its fix loops spent';
      ended.reasons = rejected ? pipeline.lastReview!.reasons : pipeline.lastDefects.map((d) => d.description);
      iterationOf(event.iteration);
      st.current = new Set();
      break;
    }
    case 'run_completed':
    case 'run_failed':
    case 'run_cancelled':
    case 'run_stopped':
      st.status = RUN_END[event.event]!;
      st.outcome = 'reason' in event ? event.reason : event.summary;
      st.endedAt = event.at;
      endStory(story, event);
      if (iterations.length > 0) Object.assign(iterations.at(-1)!, { outcome: `${st.status}: ${st.outcome}`, reasons: pipeline.lastReview?.iteration === pipeline.iteration ? pipeline.lastReview.reasons : [] });
      break;
    case 'cancel_requested':
      if (!FINAL_STATUSES.has(st.status)) st.status = 'cancelling';
      story.markers.push({ kind: 'cancel', at: parseLogTime(event.at), label: `cancel: ${event.by}${event.force ? ' --force' : ''}` });
      break;
    case 'run_resumed':
      story.markers.push({ kind: 'restart', at: parseLogTime(event.at), label: `restart: team resume (pid ${event.pid})` });
      break;
    case 'workers_sized':
      story.milestones.push({ at: event.at, action: `${event.asked} workers asked, the plan is ${event.width} wide: ${event.workers.length} work on it` });
      break;
    case 'workers_changed':
      pipeline.roster = event.roster;
      story.milestones.push({ at: event.at, action: `scaled to ${event.workers} workers` });
      break;
    case 'routing_decided':
      for (const d of event.decisions) {
        // A reviewer added to verify runs as `verify-<pass>.<role>` (machines/verify-steps.ts).
        const reviewer = event.stage === 'team-verify' && d.why.startsWith('added') ? `${event.iteration > 1 ? `i${event.iteration}.` : ''}verify-${event.loop + 1}.${d.role}` : undefined;
        const task = d.task_id ?? reviewer;
        story.routing.push({ stage: event.stage, iteration: event.iteration, loop: event.loop, at: event.at, text: describeDecision(d), role: d.role, agent: d.agent, ...(task !== undefined && { task }) });
      }
      break;
    case 'handoff_written':
      story.handoffs.push({ stage: event.stage, path: event.path, sha256: event.sha256, ...(event.text !== undefined && { text: event.text }) });
      break;
    default:
      applyGitFact(st.git, event);
      break;
  }
}

const FINAL_STATUSES = new Set(['completed', 'failed', 'cancelled']);

// A reviewer's attempt beside the verifier: `verify-<pass>.<role>`, in any iteration.
function isReviewerAttempt(taskId: string): boolean {
  return /^(?:i\d+\.)?verify-\d+\./.test(taskId);
}

// An appended event as a read of the log's files gives it back, where the fold keeps its objects
// whole (the run_started record, a worker's handle): keys in the schema's order. A fold of events as
// they were appended and one of the same events read back are then alike, down to the bytes of their
// snapshots.
export function asRead(event: TeamEvent & { file: string }): TeamEvent & { file: string } {
  if (event.event === 'run_started') {
    const read = EVENT_SCHEMAS.run_started.safeParse(event, { jitless: true });
    return read.success ? { ...read.data, file: event.file } : event;
  }
  if (event.event !== 'attempt_spawned' && event.event !== 'gate_spawned') return event;
  const handle = event.handle as Record<string, unknown>;
  handleKeys ??= Object.keys(EVENT_SCHEMAS.attempt_spawned.shape.handle.shape);
  return { ...event, handle: Object.fromEntries(handleKeys.flatMap((k) => (handle[k] === undefined ? [] : [[k, handle[k]]]))) as typeof event.handle };
}

// A handle's keys in the schema's order (read at the first handle: the schemas are built on use).
let handleKeys: string[] | undefined;

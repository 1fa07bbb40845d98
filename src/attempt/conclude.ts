// Turns a worker's end into the log's facts: usage, the stage's payload, then task_finished.
import { findPlanProblem } from '../../machines/plan.js';
import type { AttemptInput } from '../../machines/types.js';
import type { AgentAdapter, AgentReport, WorkerExit } from '../../workers/types.js';
import { lastMeaningfulLineList, lastMeaningfulLines } from '../../workers/adapters/output-end.js';
import type { Limits, NewEvent } from '../log/schema.js';
import { finishInterrupted, taskFinished, type AttemptFiles, type RecordParts } from './records.js';
import { readAttemptOutput } from './output.js';
import type { AttemptPlace } from '../session/session.js';
import { judgeResult, readResultFile, resultKindOf, type AgentResult, type ResultFileText } from '../domain/result.js';
import { guardCliText } from '../domain/result-guard.js';
import type { IsolationParts } from '../session/isolation.js';
import { concludeTask } from '../isolation/attempt.js';
import { checkoutRemoteCandidate } from '../isolation/remote.js';
import { checkBudgetSoon } from '../session/budget.js';
import { usageEvent } from './news.js';
import { plainReason, readRateLimit } from '../../workers/adapters/rate-limit.js';
import { refusedPaths } from '../../workers/fence.js';
import { runCandidateGates } from '../gates/gates.js';
import { candidateFacts, judgePick } from './prepare/candidates.js';
import { taskBranch } from '../session/isolation.js';
import type { TeamConfig } from '../../config/schema.js';

// What concluding an attempt uses of a run: its records' and isolation's parts, the project, the
// limits it started with, and whether its attempts run on team workers.
export type ConcludeParts = IsolationParts & RecordParts & { readonly runId: string; readonly projectDir: string; readonly limits: Limits; readonly place: Pick<AttemptPlace, 'runsHere'>; readonly config: TeamConfig };

type Verdict = { status: 'completed'; result: AgentResult } | { status: 'failed'; evidence: string; result?: AgentResult; retryable?: false };

// What an attempt left: how its worker ended, its output (whole up to a bound, else head and tail)
// and its result file as read. Read from the attempt folder here, or from a worker's finished report.
export interface AttemptEnd {
  exit: WorkerExit;
  output: string;
  result: ResultFileText;
}

// Records how the attempt ended. Exit codes alone never make a success: a valid result must exist.
export async function concludeAttempt(run: ConcludeParts, input: AttemptInput, files: AttemptFiles, adapter: AgentAdapter, exit: WorkerExit, recovered: boolean, signal?: AbortSignal): Promise<void> {
  await concludeEnd(run, input, adapter, { exit, output: readAttemptOutput(files.dir), result: readResultFile(files.resultFile) }, recovered, signal);
}

// The same for an end already read (a team worker's finished report): usage, payload, task_finished.
export async function concludeEnd(run: ConcludeParts, input: AttemptInput, adapter: AgentAdapter, end: AttemptEnd, recovered: boolean, signal: AbortSignal = new AbortController().signal): Promise<void> {
  const { exit, output } = end;
  const report = adapter.parse(output);
  noteUsage(run, input, report);
  noteRefused(run, input, output);
  if (recovered && !exit.stopped) {
    // Ended while no orchestrator watched: only a valid result is adopted; without one the attempt
    // is interrupted (it may have done part of its work), never counted as a plain failure.
    const reading = judgeResult(resultKindOf(input), end.result, report.finalText ?? output, agentDir(run, input));
    // One a rate limit ended is the rate limit's, told as such: recorded below, or already (the
    // orchestrator stopped between its attempt_throttled and its end).
    const limit = reading.ok ? undefined : (report.rateLimit ?? readRateLimit(lastMeaningfulLineList(output, 5).join('\n')));
    if (!reading.ok && limit && wasThrottled(run, input)) {
      run.events.commit(taskFinished(run, input, 'interrupted', `recovered after a restart: ${rateLimitedSentence(input.agent, plainReason(guardCliText(limit.reason)))}`, [], ''));
      return;
    }
    if (!reading.ok && !limit) return finishInterrupted(run, input, `recovered after a restart: the worker ended with no valid result (${reading.reason})`);
  }
  const judged = judge(run, input, end.result, exit, report, output);
  // The best of N: the selector's pick is recorded before its branch is merged.
  const pick = judged.status === 'completed' && 'pick' in judged.result ? judged.result : undefined;
  if (pick) run.events.append({ event: 'candidate_picked', task_id: input.taskId, attempt: input.attempt, pick: pick.pick, reasons: pick.reasons, ...(run.isolation.active && { branch: taskBranch(run.isolation.branch, pick.pick) }) });
  // With worktrees, a completed exec or fix task is merged first (a candidate's stays on its branch
  // for the selector, whose pick is merged instead); a failed merge fails the task.
  const unmerged = await concludeTask(run, input, judged.status === 'completed', pick?.pick);
  const verdict: Verdict = unmerged ? { status: 'failed', evidence: unmerged, result: 'result' in judged ? judged.result : undefined } : judged;
  // A completed candidate's gates run in its own worktree before its end is recorded: its worker's
  // here, or on team workers a worktree of its pushed branch on this (the writer's) machine.
  const candidateOf = input.def?.candidateOf;
  if (verdict.status === 'completed' && candidateOf !== undefined && run.isolation.active && run.config.verify.commands.length > 0) {
    const cwd = await candidateDir(run, input);
    if (cwd !== undefined) {
      await run.events.flush();
      await runCandidateGates(run, run.config.verify.commands, { taskId: input.taskId, attempt: input.attempt, iteration: input.iteration, candidateOf }, cwd, signal);
    }
  }
  const prefix = recovered ? 'recovered after a restart: ' : '';
  const seconds = (exit.durationMs / 1000).toFixed(1);
  if (verdict.status === 'completed') {
    const payload = payloadOf(input, verdict.result);
    if (payload) run.events.commit(payload);
    const work = pick ? pickedWork(run, pick) : verdict.result;
    const { artifacts, next } = work;
    const evidence = work.evidence + describeDenials(report);
    run.progress.emit({ type: 'attempt.finished', task: input.taskId, attempt: input.attempt, worker: input.worker, status: 'completed', durationMs: exit.durationMs }, `✔ ${input.taskId} a${input.attempt} completed on ${input.worker} in ${seconds}s${verdictNote(verdict.result)}`);
    run.events.commit(taskFinished(run, input, 'completed', prefix + evidence, artifacts, next));
    return;
  }
  // A spent quota is no failure of the task, and no back-off brings it back: nothing starts, and the
  // run stops for a decision that names when it resets (issue 35).
  if (report.failure?.kind === 'quota' && !unmerged) {
    const reason = guardCliText(report.failure.reason);
    const resets = report.failure.resets === undefined ? undefined : guardCliText(report.failure.resets);
    run.events.commit({ event: 'quota_reached', task_id: input.taskId, attempt: input.attempt, agent: input.agent, reason, ...(resets !== undefined && { resets }) });
    const when = resets === undefined ? '' : ` (resets ${resets})`;
    run.progress.emit({ type: 'attempt.quota', task: input.taskId, attempt: input.attempt, worker: input.worker, agent: input.agent, reason, ...(resets !== undefined && { resets }) }, `⏸ ${input.taskId} a${input.attempt} on ${input.worker}: ${input.agent}'s quota is spent${when}; nothing more starts`);
    run.events.commit(taskFinished(run, input, 'interrupted', `${prefix}quota spent${when}: ${reason}`, [], ''));
    return;
  }
  // A rate limit or an overload is no failure: the machine retries it after a back-off (issue 29).
  const limit = verdict.retryable === false || unmerged ? undefined : (report.rateLimit ?? readRateLimit(lastMeaningfulLineList(output, 5).join('\n')));
  if (limit) {
    // Not a failure: the attempt is interrupted (the seed's status for it), and tried again.
    const reason = guardCliText(limit.reason);
    run.events.commit({ event: 'attempt_throttled', task_id: input.taskId, attempt: input.attempt, agent: input.agent, reason, jitter: Math.random(), ...(limit.retryAfterMs !== undefined && { retry_after_ms: limit.retryAfterMs }) });
    const evidence = `${prefix}${rateLimitedSentence(input.agent, plainReason(reason))}`;
    run.progress.emit({ type: 'attempt.throttled', task: input.taskId, attempt: input.attempt, worker: input.worker, agent: input.agent, reason }, `⧗ ${input.taskId} a${input.attempt} on ${input.worker}: ${evidence}`);
    run.events.commit(taskFinished(run, input, 'interrupted', evidence, [], ''));
    return;
  }
  run.progress.emit({ type: 'attempt.finished', task: input.taskId, attempt: input.attempt, worker: input.worker, status: 'failed', durationMs: exit.durationMs, evidence: verdict.evidence }, `✘ ${input.taskId} a${input.attempt} failed on ${input.worker} in ${seconds}s: ${verdict.evidence}`);
  run.events.commit(taskFinished(run, input, 'failed', prefix + verdict.evidence + describeDenials(report), verdict.result?.artifacts ?? [], verdict.result?.next ?? '', verdict.retryable));
}

// "rate limited by codex (Reconnecting... 5/5 (… 429 Too Many Requests)); tried again after a
// back-off": what an attempt a rate limit interrupted says of itself, in one sentence.
function rateLimitedSentence(agent: string, reason: string): string {
  return `rate limited by ${agent} (${reason.replace(/[.\s]+$/, '')}); tried again after a back-off`;
}

// The folder the agent worked in, where its artifact paths must stay (a link out of its worktree
// would be committed and merged): its worktree, or the project. A team worker's folder is on its
// own machine: its paths are checked against the project.
function agentDir(run: ConcludeParts, input: AttemptInput): string {
  return run.place.runsHere ? run.isolation.workDir(input.stage, input.worker) : run.projectDir;
}

// "; permission denied: Bash: npm test, Write: a.txt" when the CLI refused tool calls.
function describeDenials(report: AgentReport): string {
  return report.denials && report.denials.length > 0 ? `; permission denied: ${guardCliText(report.denials.join(', '))}` : '';
}

function judge(run: ConcludeParts, input: AttemptInput, resultFile: ResultFileText, exit: WorkerExit, report: AgentReport, output: string): Verdict {
  // Credentials, quota, model, provider: no retry can fix it, however the attempt ended.
  if (report.failure) return { status: 'failed', evidence: guardCliText(report.failure.reason), retryable: false };
  if (exit.stopped) return { status: 'failed', evidence: guardCliText(exit.reason ?? 'stopped') };
  const reading = judgeResult(resultKindOf(input), resultFile, report.finalText ?? output, agentDir(run, input));
  // A permission the CLI refused, and no valid result: no retry gets the CLI another permission.
  if (report.refused && !reading.ok) return { status: 'failed', evidence: guardCliText(report.refused.reason), retryable: false };
  // What the CLI printed is quoted with its secrets redacted.
  const ended = exit.signal ? `killed by ${exit.signal}` : exit.exitCode !== 0 ? `exited ${exit.exitCode ?? '(unknown)'}${exit.reason ? ` (${guardCliText(exit.reason)})` : ''}` : undefined;
  // No machine record at all: what the CLI last said is the evidence.
  const silent = `no machine result; its last output: ${guardCliText(lastMeaningfulLines(output)) || '(none)'}`;
  const error = report.error === undefined ? undefined : guardCliText(report.error);
  if (ended) {
    const why = !report.ok && report.noRecord ? silent : !report.ok && error ? `the agent CLI reported failure: ${error}` : reading.ok ? `its result said ${reading.result.status}` : reading.reason;
    return { status: 'failed', evidence: `${ended}; ${why}` };
  }
  if (!report.ok && report.noRecord) return { status: 'failed', evidence: `exited 0 with ${silent}` };
  if (!report.ok) return { status: 'failed', evidence: `the agent CLI reported failure: ${error ?? 'no success record'}` };
  if (!reading.ok) return { status: 'failed', evidence: reading.reason };
  if (reading.result.status === 'failed') {
    const { summary, evidence } = reading.result;
    return { status: 'failed', evidence: `the agent reported failure: ${summary}${evidence && evidence !== summary ? ` — ${evidence}` : ''}`, result: reading.result };
  }
  if (input.candidates !== undefined && 'pick' in reading.result) {
    const picked = judgePick(candidateFacts(run.events.fold.state.tasks, input.candidates, (id) => id), input.taskId, reading.result.pick);
    if ('problem' in picked) return { status: 'failed', evidence: `the selector's pick cannot be merged: ${picked.problem}`, result: reading.result };
    reading.result.pick = picked.id;
  }
  if (resultKindOf(input) === 'team-plan' && 'tasks' in reading.result) {
    const problem = findPlanProblem(reading.result.tasks, run.limits.maxTasks);
    if (problem) return { status: 'failed', evidence: `invalid plan: ${problem}` };
  }
  return { status: 'completed', result: reading.result };
}

// The stage's own fact, written before task_finished.
function payloadOf(input: AttemptInput, result: AgentResult): NewEvent | undefined {
  const ref = { task_id: input.taskId, attempt: input.attempt };
  if ('findings' in result) return { event: 'explore_found', ...ref, findings: result.findings };
  if ('notes' in result) return { event: 'architect_noted', ...ref, notes: result.notes, risks: result.risks };
  if ('objections' in result) return { event: 'critic_objected', ...ref, objections: result.objections, acceptance: result.acceptance };
  if ('tasks' in result) return { event: 'plan_accepted', ...ref, tasks: result.tasks, needsPrd: result.needsPrd, ...(result.architectural === true && { architectural: true }), ...(result.needsArchitect === true && { needsArchitect: true }) };
  if ('acceptance' in result) return { event: 'prd_accepted', ...ref, acceptance: result.acceptance };
  if ('defects' in result) return { event: 'verify_result', ...ref, verdict: result.verdict, defects: result.defects };
  if ('pick' in result) return undefined;
  if ('reasons' in result) return { event: 'review_result', ...ref, verdict: result.verdict, reasons: result.reasons };
  return undefined;
}

// What a select task hands on as its own: the picked candidate's files and end, and why it was picked.
function pickedWork(run: ConcludeParts, pick: { pick: string; reasons: string[] }): { evidence: string; artifacts: string[]; next: string } {
  const last = run.events.fold.state.tasks.get(pick.pick)?.attempts.at(-1);
  const why = pick.reasons.length > 0 ? `: ${pick.reasons.join('; ')}` : '';
  return { evidence: `picked ${pick.pick}${last ? ` (${last.agent})` : ''}${why} — ${last?.evidence ?? ''}`, artifacts: last?.artifacts ?? [], next: last?.next ?? '' };
}

// The CLI's totals at the attempt's end (news.ts), and the budget checked when it spent anything.
function noteUsage(run: ConcludeParts, input: AttemptInput, report: AgentReport): void {
  const usage = usageEvent(input, report);
  if (!usage) return;
  run.events.append(usage);
  if (usage.cost_usd !== undefined || usage.tokens) checkBudgetSoon(run);
}

// A verifier's or a reviewer's completed attempt that found fault says so beside its ✔.
function verdictNote(result: object): string {
  if ('verdict' in result && result.verdict === 'fail' && 'defects' in result && Array.isArray(result.defects)) return ` — verdict fail, ${result.defects.length} defect(s)`;
  if ('verdict' in result && result.verdict === 'reject') return ' — verdict reject';
  return '';
}

// The writes the fence refused the agent, as its output tells them: recorded, and said at once.
function noteRefused(run: ConcludeParts, input: AttemptInput, output: string): void {
  const paths = refusedPaths(output).map((path) => guardCliText(path));
  if (paths.length === 0) return;
  run.events.commit({ event: 'fence_refused', task_id: input.taskId, attempt: input.attempt, worker: input.worker, paths });
  run.progress.emit({ type: 'attempt.refused', task: input.taskId, attempt: input.attempt, worker: input.worker, paths }, `  ⚠ needs attention: the fence refused writes of ${input.taskId} a${input.attempt} outside its work: ${paths.join(', ')}`);
}

// True when the log holds the attempt's attempt_throttled already.
function wasThrottled(run: ConcludeParts, input: AttemptInput): boolean {
  return run.events.fold.state.tasks.get(input.taskId)?.attempts.some((a) => a.attempt === input.attempt && a.rateLimited === true) ?? false;
}

// Where a completed candidate's work is on this machine, for its gates: none without worktrees here
// or a remote to fetch it from (the selector is then told its gates did not run).
async function candidateDir(run: ConcludeParts, input: AttemptInput): Promise<string | undefined> {
  if (run.place.runsHere) return run.isolation.workDir(input.stage, input.worker);
  if (run.isolation.remote === undefined) return undefined;
  const checkout = await checkoutRemoteCandidate(run, input.taskId, input.attempt);
  if (checkout.why) run.progress.emit({ type: 'candidate.ungated', task: input.taskId, why: checkout.why }, `  ${input.taskId}'s gates did not run: ${checkout.why}`);
  return checkout.path;
}

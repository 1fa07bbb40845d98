// One attempt on a worker: run as the orchestrator runs it (the attempt folder, the prompt, the
// adapter's command, the process backend's own process group, the one watch of src/attempt/execute.ts),
// under a lease, with its reports.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { executeAttempt, stopAttemptEscapees, type Execution } from '../attempt/execute.js';
import { attemptLeft, readAttemptOutput } from '../attempt/output.js';
import { adapterOf, attemptFilesIn, prepareLaunch, takesToolCalls } from '../attempt/prepare/launch.js';
import { killServer } from '../../workers/tmux/index.js';
import { fenceAttempt } from '../isolation/fence.js';
import type { AgentAdapter, LaunchSpec, WorkerExit } from '../../workers/types.js';
import { recordLaunch } from './leftovers.js';
import { retryingEvent, sessionEvent, stalledEvent, takenEvent, usageEvent, type AttemptWho } from '../attempt/news.js';
import { SpendSender } from './spend.js';
import { completeJob, failJob, renewLease, writeReport, type TakenAttempt } from '../store/attempt-queue.js';
import type { WorkerContext } from './context.js';
import { keepLease } from './lease.js';
import { openAttemptTree, type AttemptTree, type GitOutcome } from './git.js';
import { relayCalls, relaySite, type CallRelay } from './relay.js';
import { CALLS_DIR } from '../team-tools/calls.js';

// The output a finished report carries (its head and tail): where a fenced result may be found.
const OUTPUT_REPORT_LIMIT = 64 * 1024;
// Between the polite stop request and the signals, for an agent the worker stops.
const STOP_GRACE_MS = 2_000;


// A running attempt: its agent's handle once started, and how to stop it.
export interface RunningAttempt {
  taskId: string;
  attempt: number;
  done: Promise<void>;
  stop(reason: string): Promise<void>;
  /** Whether its agent has the team tools (its `team mcp` made the calls folder). */
  hasTools(): boolean;
  /** Stops it once `graceMs` passed unless it ended by then (a shutdown request asked it to end itself). */
  stopAfter(graceMs: number, reason: string): Promise<void>;
}

// Starts the attempt's agent; `done` settles once it ended and its finished report is written (or the lease was lost).
export function runTakenAttempt(ctx: WorkerContext, taken: TakenAttempt, takenAt: number): RunningAttempt {
  const { job } = taken;
  const ref = { runId: job.runId, taskId: job.taskId, attempt: job.attempt };
  const name = `${job.runId} ${job.taskId} a${job.attempt}`;
  let execution: Execution | undefined;
  let stopped: string | undefined;
  let lost: string | undefined;
  let relay: CallRelay | undefined;
  let spend: SpendSender | undefined;
  // The agent runs as the orchestrator would run it: its own process group, or a pane when its config says tmux.
  const backend = job.agent.tmux ? ctx.tmux : ctx.backend;
  // What the watch sees goes to the writer as the log's own events (src/attempt/news.ts).
  const who: AttemptWho = whoOf(job);
  const report = (kind: Parameters<typeof writeReport>[3], body: object) => writeReport(ctx.store, ref, ctx.holder.workerId, kind, body);
  const tell = (event: object) => void report('event', event).catch(() => false);
  // A stop asked before the agent started is done once it has.
  const stop = async (reason: string) => {
    stopped ??= reason;
    await execution?.stop(reason, STOP_GRACE_MS);
  };
  const lease = keepLease(() => renewLease(ctx.store, job, ctx.holder), ctx.holder.ttlMs, takenAt, (reason) => {
    lost = reason;
    ctx.say(`■ ${name}: ${reason}: stopping its agent`);
    void stop(reason);
  });
  const done = (async () => {
    try {
      let tree: AttemptTree | undefined;
      try {
        tree = job.git ? await openAttemptTree(ctx.projectDir, ctx.folder, job) : undefined;
      } catch (error) {
        // No worktree, no agent: the finished report says why, and the writer fails the attempt.
        ctx.say(`■ ${name}: ${(error as Error).message}`);
        const exit = { exitCode: null, signal: null, durationMs: 0, stopped: false, reason: `the worker could not prepare the attempt's code: ${(error as Error).message}` };
        await finish(ctx, taken, attemptDirOf(ctx, taken), undefined, exit, () => lost !== undefined);
        return;
      }
      const { spec, adapter } = await makeSpec(ctx, taken, tree?.workDir ?? ctx.projectDir);
      // The fence, as on the writer's machine: a required one this machine cannot build fails the attempt.
      const unfenced = await fenceAttempt(job.fence ?? 'auto', spec, adapter, job.fenceWritable).then(() => undefined, (error: Error) => error.message);
      if (unfenced !== undefined) {
        ctx.say(`■ ${name}: ${unfenced}`);
        await tree?.finish('stopped').catch(() => undefined);
        await finish(ctx, taken, spec.attemptDir, undefined, { exitCode: null, signal: null, durationMs: 0, stopped: false, reason: unfenced }, () => lost !== undefined);
        return;
      }
      if (job.agent.tmux) ctx.tmuxRuns.set(job.runId, (ctx.tmuxRuns.get(job.runId) ?? 0) + 1);
      if (takesToolCalls({ agent: job.agent, adapter })) relay = relayCalls(ctx.store, job.runId, relaySite(job, spec.cwd, spec.attemptDir, join(spec.attemptDir, 'result.json')), (error) => ctx.say(`a team tool call of ${name} was not relayed: ${error.message}`));
      const launched = await backend.launch(spec, (at) => recordLaunch(spec.attemptDir, ctx.holder.workerId, at));
      spend = new SpendSender(who, (body) => report('event', body));
      // The one watch of an attempt (src/attempt/execute.ts), as on the writer's machine: the run's cap
      // on an attempt's wall-clock time counts from when the job was taken; what it sees goes to the
      // writer as reports, which it records in the run's log.
      execution = executeAttempt(
        { backend, handle: launched, spec, adapter, stage: job.stage, spender: { name: job.agentName, agent: job.agent }, since: Date.now(), capFrom: takenAt, ...(job.capMs !== undefined && { capMs: job.capMs }), ...(job.stallMs !== undefined && { stallMs: job.stallMs }), ...(job.silenceMs !== undefined && { silenceMs: job.silenceMs }) },
        {
          halt: (graceMs) => backend.stop(launched, { graceMs }).catch((error: Error) => ctx.say(`■ ${name}: its agent could not be stopped: ${error.message}`)),
          stalled: (silentMs) => tell(stalledEvent(who, silentMs)),
          // A rate limit its CLI retries itself is reported once an episode: the writer tells it and slows the agent's other attempts.
          retrying: (retry, first) => {
            if (!first) return;
            ctx.say(`⟳ ${name}: ${job.agentName} is retrying a rate limit (${retry.reason})`);
            tell(retryingEvent(who, retry));
          },
          sessionId: (id) => tell(sessionEvent(who, id)),
          spent: (so) => spend?.offer(so),
          tail: (line) => void report('output-tail', { line }).catch(() => false),
          stopping: (reason) => ctx.say(`■ ${name}: ${reason}`),
          broken: (error) => ctx.say(`■ ${name}: its watch stopped: ${error.message}`),
        },
      );
      if (stopped) void execution.stop(stopped, STOP_GRACE_MS).catch(() => undefined);
      ctx.say(`▶ ${name} started (pid ${launched.pid})`);
      await report('event', takenEvent(who, { workerId: ctx.holder.workerId, host: ctx.holder.host, handle: launched })).catch(() => false);
      const exit = await execution.exit;
      if (exit.stopped) stopped ??= exit.reason;
      await relay?.close();
      // Its last spend report is written before the end's usage, which supersedes it.
      await spend.stop();
      await stopAttemptEscapees(job.runId, job.taskId, job.attempt, launched);
      const code = tree ? await tree.finish(stopped ? 'stopped' : 'ended').catch((error: Error) => ({ pushed: false, error: error.message })) : undefined;
      // The lease is kept while the report is written: a store that is down for a while loses nothing.
      if (!lost) await finish(ctx, taken, spec.attemptDir, adapter, exit, () => lost !== undefined, code);
      lease.stop();
      if (lost) return void (await failJob(ctx.boss, taken, lost).catch(() => undefined));
      ctx.say(`■ ${name} finished (${exit.signal ?? `exit ${exit.exitCode}`}${stopped ? `, stopped: ${stopped}` : ''})`);
    } finally {
      await relay?.close();
      await spend?.stop();
      lease.stop();
      if (job.agent.tmux) await releaseTmux(ctx, job.runId);
    }
  })();
  const attemptDir = attemptDirOf(ctx, taken);
  const stopAfter = async (graceMs: number, reason: string) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
    const ended = await Promise.race([done.then(() => 'ended' as const), late]);
    clearTimeout(timer);
    if (ended === 'late') await stop(reason);
  };
  return { taskId: job.taskId, attempt: job.attempt, done, stop, hasTools: () => existsSync(join(attemptDir, CALLS_DIR)), stopAfter };
}

// The run's tmux server on this machine goes once none of its attempts runs here any more.
async function releaseTmux(ctx: WorkerContext, runId: string): Promise<void> {
  const left = (ctx.tmuxRuns.get(runId) ?? 1) - 1;
  if (left > 0) return void ctx.tmuxRuns.set(runId, left);
  ctx.tmuxRuns.delete(runId);
  await killServer(runId).catch((error: Error) => ctx.say(`the tmux server of run ${runId} could not be ended: ${error.message}`));
}

// The finished report (the result file's text as the orchestrator reads it, the exit, the output),
// then the job's completion: a job is complete only once its report committed. A store that cannot
// be reached is tried again every TTL/4 until the lease is lost.
async function finish(ctx: WorkerContext, taken: TakenAttempt, attemptDir: string, adapter: AgentAdapter | undefined, exit: WorkerExit, isLost: () => boolean, code?: GitOutcome): Promise<void> {
  const { job } = taken;
  const ref = { runId: job.runId, taskId: job.taskId, attempt: job.attempt };
  const usage = adapter && usageEvent(whoOf(job), adapter.parse(readAttemptOutput(attemptDir)));
  if (usage) await writeReport(ctx.store, ref, ctx.holder.workerId, 'event', usage).catch(() => false);
  const body = { ...(await attemptLeft(attemptDir, OUTPUT_REPORT_LIMIT)), exit, ...(code && { git: code }) };
  let written: boolean | undefined;
  while (written === undefined && !isLost()) {
    written = await writeReport(ctx.store, ref, ctx.holder.workerId, 'finished', withoutNul(body) as object).catch(async () => {
      await new Promise((resolve) => setTimeout(resolve, ctx.holder.ttlMs / 4));
      return undefined;
    });
  }
  if (written === undefined) return;
  if (written) await completeJob(ctx.boss, taken);
  else await failJob(ctx.boss, taken, 'the finished report was refused: the lease is no longer this worker’s or the attempt ended');
}

// The attempt as its news names it: the run's worker and the agent's name are the job's.
function whoOf(job: TakenAttempt['job']): AttemptWho {
  return { taskId: job.taskId, attempt: job.attempt, stage: job.stage as AttemptWho['stage'], agent: job.agentName, worker: job.worker };
}

// The attempt's folder under the worker's own folder.
function attemptDirOf(ctx: WorkerContext, taken: TakenAttempt): string {
  const { job } = taken;
  return join(ctx.folder, 'attempts', job.runId, job.taskId, `a${job.attempt}`);
}

// The attempt's folder, emptied (a job is taken once: whatever is there is a leftover of an earlier
// worker on this folder), and what its agent starts with (src/attempt/prepare/launch.ts).
async function makeSpec(ctx: WorkerContext, taken: TakenAttempt, workDir: string): Promise<{ spec: LaunchSpec; adapter: AgentAdapter }> {
  const { job } = taken;
  const attemptDir = attemptDirOf(ctx, taken);
  rmSync(attemptDir, { recursive: true, force: true });
  const files = attemptFilesIn(attemptDir);
  // The writer leaves this machine's paths to it (src/remote/job.ts).
  const prompt = job.prompt.replaceAll('{{projectDir}}', workDir).replaceAll('{{resultFile}}', files.resultFile);
  const adapter = adapterOf(job.agent);
  const env = { ...job.env, TEAM_PROMPT_FILE: files.promptFile, TEAM_RESULT_FILE: files.resultFile, TEAM_PROJECT_DIR: workDir };
  const spec: LaunchSpec = { runId: job.runId, taskId: job.taskId, attempt: job.attempt, worker: job.worker, attemptDir, cwd: workDir, command: { file: adapter.name, args: [] }, env };
  return { spec: await prepareLaunch(spec, { prompt, stage: job.stage, agent: job.agent, adapter, permission: job.permission, projectDir: workDir }), adapter };
}

// jsonb refuses U+0000 in text: a raw NUL never belongs to valid JSON or a readable line, so it is
// replaced by U+FFFD, which keeps an invalid result invalid.
function withoutNul(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\0', '\ufffd');
  if (Array.isArray(value)) return value.map(withoutNul);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutNul(v)]));
  return value;
}

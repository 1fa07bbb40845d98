// The `team worker` daemon: pulls attempts from the PostgreSQL store and runs them on this machine,
// each under a lease, reporting what happens. It never writes the log: the run's writer turns its
// reports into events.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { nanoid } from 'nanoid';
import { createProcessBackend } from '../../workers/process.js';
import { createTmuxBackend } from '../../workers/tmux/index.js';
import { BOOT_ID } from '../sys/proc.js';
import { terminalText } from '../sys/terminal-text.js';
import { ATTEMPT_QUEUE, PgStore, closeQueue, describeUrl, ensureAttemptQueue, listenRequests, openQueue, takeAttempts } from '../store/attempt-queue.js';
import { runTakenAttempt, type RunningAttempt } from './attempt.js';
import type { WorkerContext } from './context.js';
import { CancelWatch } from './cancel.js';
import { stopLeftovers } from './leftovers.js';
import { keepTeamOutOfGit } from '../git/team-exclude.js';

// What a worker was started with (src/commands/worker.ts reads it from the command line).
export interface WorkerOptions {
  storeUrl: string;
  labels: string[];
  max: number;
  leaseTtlMs: number;
  /** The folder agents work in; the worker's own files are under its .team/worker. */
  projectDir: string;
}

// How often a worker with room asks for more attempts.
const POLL_MS = 500;
// How long closing the connections may take before the worker exits without them.
const CLOSE_MS = 5_000;

// Runs until SIGTERM or SIGINT: then stops the agents it started, reports them, and exits 0. Every
// TTL/4 it also stops agents an earlier worker on this folder left running once their lease is gone.
export async function runWorker(options: WorkerOptions): Promise<number> {
  const ctx = await openWorker(options);
  const queues = [ATTEMPT_QUEUE];
  for (const label of options.labels) queues.push(await ensureAttemptQueue(ctx.boss, label));
  const loop = { stopping: undefined as string | undefined, wake: () => {} };
  const onSignal = (signal: NodeJS.Signals) => {
    loop.stopping ??= `the worker was stopped (${signal})`;
    loop.wake();
  };
  process.on('SIGTERM', onSignal).on('SIGINT', onSignal);
  const cancels = new CancelWatch(ctx.store, ctx.say);
  const listener = await listenRequests(
    options.storeUrl,
    `teamline worker ${ctx.holder.workerId} listening`,
    (runId) => void cancels.onRequest(runId).catch(() => undefined),
    () => void cancels.onGap(),
  ).catch((error: Error) => {
    ctx.say(`cannot listen for cancel requests (${error.message}): a cancelled attempt stops at its next lease renewal`);
    return undefined;
  });
  ctx.say(`worker ${ctx.holder.workerId} on ${describeUrl(options.storeUrl)}: queues ${queues.join(', ')}; up to ${options.max} at once; lease TTL ${options.leaseTtlMs / 1000} s`);
  const running = new Set<RunningAttempt>();
  try {
    await pullUntilStopped(ctx, queues, options.max, running, cancels, loop);
    ctx.say(`${loop.stopping}: stopping ${running.size} agent(s)`);
    await Promise.allSettled([...running].map((run) => run.stop(loop.stopping!)));
    // Their reports are waited for at most a TTL: a store that does not answer must not keep us.
    await within(Promise.allSettled([...running].map((run) => run.done)), ctx.holder.ttlMs);
    return 0;
  } finally {
    process.off('SIGTERM', onSignal).off('SIGINT', onSignal);
    await within(Promise.allSettled([listener?.close(), closeQueue(ctx.boss), ctx.store.close()]), CLOSE_MS);
  }
}

// Waits for `work`, or `ms` at most.
function within(work: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

// Connects to the store and pg-boss under a new worker id; the worker's folder is <cwd>/.team/worker.
async function openWorker(options: WorkerOptions): Promise<WorkerContext> {
  keepTeamOutOfGit(options.projectDir);
  const workerId = `${hostname()}-${process.pid}-${nanoid(6)}`;
  const name = `teamline worker ${workerId}`;
  const store = await PgStore.open(options.storeUrl, name);
  const boss = await openQueue(options.storeUrl, name).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  return {
    store,
    boss,
    backend: createProcessBackend(),
    tmux: createTmuxBackend(),
    tmuxRuns: new Map(),
    holder: { workerId, host: hostname(), bootId: BOOT_ID ?? '', ttlMs: options.leaseTtlMs },
    projectDir: options.projectDir,
    folder: join(options.projectDir, '.team', 'worker'),
    say: (line) => process.stderr.write(`${terminalText(line)}\n`),
  };
}

// Takes attempts while there is room and starts each, until `loop.stopping` is set.
async function pullUntilStopped(ctx: WorkerContext, queues: string[], max: number, running: Set<RunningAttempt>, cancels: CancelWatch, loop: { stopping?: string; wake: () => void }): Promise<void> {
  const told = new Set<string>();
  let nextLeftoverLook = 0;
  while (!loop.stopping) {
    if (Date.now() >= nextLeftoverLook) {
      nextLeftoverLook = Date.now() + ctx.holder.ttlMs / 4;
      await stopLeftovers(ctx, told).catch((error: Error) => ctx.say(`cannot look at agents left by earlier workers now: ${error.message}`));
    }
    if (running.size < max) {
      const takenAt = Date.now();
      const taken = await takeAttempts(ctx.store, ctx.boss, queues, max - running.size, ctx.holder).catch((error: Error) => {
        ctx.say(`cannot take attempts now: ${error.message}`);
        return [];
      });
      for (const attempt of taken) {
        const run = runTakenAttempt(ctx, attempt, takenAt);
        running.add(run);
        void cancels.track(attempt.job.runId, run).catch(() => undefined);
        void run.done
          .catch((error: Error) => ctx.say(`${attempt.job.runId} ${attempt.job.taskId} a${attempt.job.attempt}: ${error.message}`))
          .finally(() => {
            running.delete(run);
            cancels.untrack(attempt.job.runId, run);
            loop.wake();
          });
      }
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, POLL_MS);
      loop.wake = () => (clearTimeout(timer), resolve());
    });
  }
}

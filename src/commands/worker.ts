// `team worker --store URL [--labels a,b] [--max N] [--lease-ttl S] [--cwd DIR]`: pulls attempts from
// the PostgreSQL store and runs them on this machine, each under a lease, reporting what happens.
// It never writes the log: the run's writer turns its reports into events.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { nanoid } from 'nanoid';
import { createProcessBackend } from '../../workers/process.js';
import { BOOT_ID } from '../../workers/proc.js';
import { ATTEMPT_QUEUE } from '../store/attempt-job.js';
import { describeUrl } from '../store/pg-connect.js';
import { takeAttempts } from '../store/pg-leases.js';
import { closeQueue, ensureAttemptQueue, openQueue } from '../store/pg-queue.js';
import { listenRequests } from '../store/pg-requests.js';
import { PgStore } from '../store/pg-store.js';
import { runTakenAttempt, type RunningAttempt, type WorkerContext } from './worker-attempt.js';
import { parseWorkerArgs } from './worker-args.js';
import { CancelWatch } from './worker-cancel.js';
import { stopLeftovers } from './worker-leftovers.js';

// How often a worker with room asks for more attempts.
const POLL_MS = 500;

// Runs until SIGTERM or SIGINT: then stops the agents it started, reports them, and exits 0. Every
// TTL/4 it also stops agents an earlier worker on this folder left running once their lease is gone.
export async function workerCommand(argv: string[]): Promise<number> {
  const options = parseWorkerArgs(argv);
  const workerId = `${hostname()}-${process.pid}-${nanoid(6)}`;
  const name = `teamline worker ${workerId}`;
  const store = await PgStore.open(options.storeUrl, name);
  const boss = await openQueue(options.storeUrl, name).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const ctx: WorkerContext = {
    store,
    boss,
    backend: createProcessBackend(),
    holder: { workerId, host: hostname(), bootId: BOOT_ID ?? '', ttlMs: options.leaseTtlMs },
    projectDir: options.projectDir,
    folder: join(options.projectDir, '.team', 'worker'),
    say,
  };
  const queues = [ATTEMPT_QUEUE];
  for (const label of options.labels) queues.push(await ensureAttemptQueue(boss, label));
  let stopping: string | undefined;
  let wake = () => {};
  const onSignal = (signal: NodeJS.Signals) => {
    stopping ??= `the worker was stopped (${signal})`;
    wake();
  };
  process.on('SIGTERM', onSignal).on('SIGINT', onSignal);
  const cancels = new CancelWatch(store, say);
  const listener = await listenRequests(options.storeUrl, `${name} listening`, (runId) => void cancels.onRequest(runId).catch(() => undefined)).catch((error: Error) => {
    say(`cannot listen for cancel requests (${error.message}): a cancelled attempt stops at its next lease renewal`);
    return undefined;
  });
  say(`worker ${workerId} on ${describeUrl(options.storeUrl)}: queues ${queues.join(', ')}; up to ${options.max} at once; lease TTL ${options.leaseTtlMs / 1000} s`);
  const running = new Set<RunningAttempt>();
  const told = new Set<string>();
  let nextLeftoverLook = 0;
  try {
    while (!stopping) {
      if (Date.now() >= nextLeftoverLook) {
        nextLeftoverLook = Date.now() + options.leaseTtlMs / 4;
        await stopLeftovers(ctx, told).catch((error: Error) => say(`cannot look at agents left by earlier workers now: ${error.message}`));
      }
      if (running.size < options.max) {
        const takenAt = Date.now();
        const taken = await takeAttempts(store, boss, queues, options.max - running.size, ctx.holder).catch((error: Error) => {
          say(`cannot take attempts now: ${error.message}`);
          return [];
        });
        for (const attempt of taken) {
          const run = runTakenAttempt(ctx, attempt, takenAt);
          running.add(run);
          void cancels.track(attempt.job.runId, run).catch(() => undefined);
          void run.done
            .catch((error: Error) => say(`${attempt.job.runId} ${attempt.job.taskId} a${attempt.job.attempt}: ${error.message}`))
            .finally(() => {
              running.delete(run);
              cancels.untrack(attempt.job.runId, run);
              wake();
            });
        }
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => (clearTimeout(timer), resolve());
      });
    }
    say(`${stopping}: stopping ${running.size} agent(s)`);
    await Promise.allSettled([...running].map((run) => run.stop(stopping!)));
    await Promise.allSettled([...running].map((run) => run.done));
    return 0;
  } finally {
    process.off('SIGTERM', onSignal).off('SIGINT', onSignal);
    await listener?.close();
    await closeQueue(boss).catch(() => undefined);
    await store.close();
  }
}

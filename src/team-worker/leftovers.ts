// Agents left running by an earlier worker process on this folder (killed, or its machine lost the
// store): a worker that starts again stops each one whose lease that worker no longer holds, so that
// no attempt runs on two machines. Each attempt folder names the worker that started it.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../sys/atomic.js';
import type { WorkerHandle } from '../../workers/types.js';
import { readRegularFile } from '../sys/regular-file.js';
import { leaseHeld } from '../store/attempt-queue.js';
import type { WorkerContext } from './context.js';

// In each attempt folder: which worker started the agent, and its handle.
const LAUNCH_FILE = 'worker.json';
// A launch record is a worker id and a handle: far less than this.
const LAUNCH_BYTES = 64 * 1024;
// Between the polite stop request and the signals, for an agent left behind.
const STOP_GRACE_MS = 2_000;

interface Launch {
  workerId: string;
  handle: WorkerHandle;
}

// Records who started the attempt's agent, as soon as its handle is known.
export function recordLaunch(attemptDir: string, workerId: string, handle: WorkerHandle): void {
  writeFileAtomic(attemptDir, LAUNCH_FILE, `${JSON.stringify({ workerId, handle })}\n`, { fsync: true });
}

// Stops the live agents of earlier workers on this folder whose lease is gone; returns how many. An
// agent whose lease is still held is named once (in `told`) and looked at again on the next call.
export async function stopLeftovers(ctx: WorkerContext, told: Set<string>): Promise<number> {
  let stopped = 0;
  for (const { dir, ref } of attemptFolders(join(ctx.folder, 'attempts'))) {
    const launch = readLaunch(join(dir, LAUNCH_FILE));
    if (!launch || launch.workerId === ctx.holder.workerId) continue;
    // A pane's agent too is stopped by its process group (pid, start time, boot): no tmux command is
    // run on what a file of the attempt folder, which the agent could rewrite, says.
    const handle: WorkerHandle = { backend: 'process', pid: launch.handle.pid, pidStart: launch.handle.pidStart, pgid: launch.handle.pgid, ...(launch.handle.bootId ? { bootId: launch.handle.bootId } : {}), ...(launch.handle.pidNs ? { pidNs: launch.handle.pidNs } : {}) };
    if (!(await ctx.backend.isAlive(handle))) continue;
    const name = `${ref.runId} ${ref.taskId} a${ref.attempt}`;
    if (await leaseHeld(ctx.store, ref, launch.workerId)) {
      if (!told.has(name)) ctx.say(`↺ ${name}: left running, its lease is still held by worker ${launch.workerId}`);
      told.add(name);
      continue;
    }
    ctx.say(`■ ${name}: started by worker ${launch.workerId}, whose lease is gone: stopping its agent (pid ${launch.handle.pid})`);
    await ctx.backend.stop(handle, { graceMs: STOP_GRACE_MS });
    stopped++;
  }
  return stopped;
}

// attempts/<run>/<task>/a<n>, as the worker makes them.
function attemptFolders(root: string): Array<{ dir: string; ref: { runId: string; taskId: string; attempt: number } }> {
  const found: Array<{ dir: string; ref: { runId: string; taskId: string; attempt: number } }> = [];
  for (const runId of listDir(root)) {
    for (const taskId of listDir(join(root, runId))) {
      for (const name of listDir(join(root, runId, taskId))) {
        const attempt = /^a([1-9]\d*)$/.exec(name)?.[1];
        if (attempt) found.push({ dir: join(root, runId, taskId, name), ref: { runId, taskId, attempt: Number(attempt) } });
      }
    }
  }
  return found;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

// The attempt folder is the agent's too: a FIFO or a link there is never opened in a way that blocks or follows.
function readLaunch(file: string): Launch | undefined {
  const read = readRegularFile(file, LAUNCH_BYTES);
  if (!read.ok) return undefined;
  try {
    const data = JSON.parse(read.text) as Partial<Launch>;
    const h = data.handle as Partial<WorkerHandle> | undefined;
    const ok = typeof data.workerId === 'string' && h && Number.isInteger(h.pid) && Number.isInteger(h.pidStart) && Number.isInteger(h.pgid);
    return ok ? (data as Launch) : undefined;
  } catch {
    return undefined;
  }
}

// The side effects a scenario can ask of an attempt: sleeping, hanging, ignoring signals,
// child processes, heartbeats, bulk output and files written in the project.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Behaviour } from './scenario.js';
import type { SimEnv } from './sim-env.js';
import type { TaskIdParts } from './task-id.js';

// Children outlive any test that cancels them, yet a leaked one still ends on its own.
const DEFAULT_CHILD_SLEEP_MS = 300_000;
// Lines per stdout write when printing bulk output: big enough to be quick, small enough to respect backpressure.
const LINES_PER_WRITE = 2_000;
// The longest delay a Node timer accepts; hanging re-arms it forever.
const MAX_TIMER_MS = 2 ** 31 - 1;

// Never resolves, and keeps the process alive until a signal ends it.
export function hangForever(): Promise<never> {
  setInterval(() => {}, MAX_TIMER_MS);
  return new Promise<never>(() => {});
}

// Makes SIGTERM and SIGINT do nothing, to test that the runtime escalates to SIGKILL.
export function ignoreSignals(): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => console.log(`sim: ignored ${signal}`));
  }
}

// Starts sleeping children in the sim's own process group, so a group kill must reach them.
export function spawnChildren(count: number, sleepMs = DEFAULT_CHILD_SLEEP_MS): number[] {
  const pids: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const child = spawn(process.execPath, ['-e', `setTimeout(() => {}, ${sleepMs})`], { stdio: 'ignore' });
    child.unref();
    if (child.pid !== undefined) pids.push(child.pid);
  }
  return pids;
}

// Touches the heartbeat file now and every `everyMs`; the timer never keeps the sim alive on its own.
export function startHeartbeat(file: string, everyMs: number): void {
  mkdirSync(dirname(file), { recursive: true });
  const beat = () => writeFileSync(file, `${new Date().toISOString()} pid ${process.pid}\n`);
  beat();
  setInterval(beat, everyMs).unref();
}

// Where the heartbeat goes: the scenario's path (relative to the project) or `heartbeat` beside the result file.
export function toHeartbeatFile(env: SimEnv, behaviour: Behaviour): string {
  if (behaviour.heartbeatFile) return resolve(env.projectDir, behaviour.heartbeatFile);
  return join(dirname(env.resultFile), 'heartbeat');
}

// Prints `count` numbered lines, waiting for stdout to drain between chunks.
export async function printLines(count: number, taskId: string): Promise<void> {
  for (let start = 0; start < count; start += LINES_PER_WRITE) {
    let chunk = '';
    for (let n = start + 1; n <= Math.min(count, start + LINES_PER_WRITE); n += 1) chunk += `sim ${taskId} line ${n}\n`;
    if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
  }
}

// Writes the attempt's files in the project and returns its artifacts (paths relative to the project).
export function writeTaskFiles(env: SimEnv, task: TaskIdParts, behaviour: Behaviour): string[] {
  const writesByDefault = env.stage === 'team-exec' || env.stage === 'team-fix';
  const files = behaviour.files ?? (writesByDefault ? [{ path: `sim-output/${task.id}.txt` }] : []);
  for (const file of files) {
    const target = resolve(env.projectDir, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content ?? `task ${task.id} attempt ${env.attempt} by ${env.worker}\n`);
  }
  return [...files.map((file) => file.path), ...(behaviour.artifacts ?? [])];
}

// Makes the attempt's symbolic links in the project; returns their paths as artifacts.
export function makeLinks(env: SimEnv, behaviour: Behaviour): string[] {
  for (const link of behaviour.links ?? []) {
    const at = resolve(env.projectDir, link.path);
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(link.target, at);
  }
  return (behaviour.links ?? []).map((link) => link.path);
}

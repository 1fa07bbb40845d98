// The kill -9 torture: a run started with the built CLI, its orchestrator killed with SIGKILL at
// many points (seeded random delays, and right after chosen events appear), resumed each time.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CliResult, Orchestrator, RecoveryProject } from './recovery-project.js';

// How often the events folder is looked at while waiting for a kill point.
const POLL_MS = 8;
// A chosen event that does not come this long after the take-over: kill anyway.
const FALLBACK_MS = 2_500;
// An orchestrator that neither reaches its kill point nor ends in this long is stuck.
const CYCLE_LIMIT_MS = 90_000;
// No attempt finished for this long, over any number of cycles: the run is stuck.
const STALL_MS = 60_000;
// With this few tasks left, no random kill points: only the take-over and the event points.
const NEAR_END_TASKS = 3;
// The run has taken over: its first event, or the resume's run_resumed.
const TAKEOVER = /-(run_started|run_resumed)-run-a0-/;
// The run has ended: a resume after this finds nothing to do.
const RUN_END = /-run_(completed|failed|cancelled|stopped)-run-a0-/;

// Right after one of these appears, the orchestrator is mid-way through what follows it; taken in turn.
const EVENT_POINTS = [
  { label: 'right after a task_started', pattern: /-task_started-/ },
  { label: 'right after an attempt_spawned', pattern: /-attempt_spawned-/ },
  { label: 'right after a task_finished', pattern: /-task_finished-/ },
];

// Points of one moment of the run: armed in every cycle until hit this often.
const PHASE_POINTS = [
  { label: 'during a handoff (after stage_completed)', pattern: /-stage_completed-/, want: 2 },
  { label: 'during verify', pattern: /-(task_started|attempt_spawned)-verify-\d+-a\d+-/, want: 2 },
  { label: 'during a fix', pattern: /-(task_started|attempt_spawned)-fix-[^-]+-[^-]+-a\d+-/, want: 1 },
];

type Point = { kind: 'random'; delayMs: number } | { kind: 'lock' } | { kind: 'event'; label: string; pattern: RegExp } | { kind: 'none' };

export interface Kill {
  cycle: number;
  label: string;
  /** Milliseconds from the orchestrator's start to the kill. */
  afterMs: number;
  lastEvent: string;
}

export interface TortureOptions {
  project: RecoveryProject;
  startArgs: string[];
  minKills: number;
  seed: number;
  /** Tasks that complete once each in the finished run; the torture keeps enough of them ahead of its kills. */
  expectedTasks: string[];
  log(line: string): void;
}

// Every point the torture means to hit at least once.
export const POINT_LABELS = [...EVENT_POINTS.map((p) => p.label), ...PHASE_POINTS.map((p) => p.label)];

export interface TortureResult {
  kills: Kill[];
  final: CliResult;
  phaseHits: Record<string, number>;
}

// mulberry32: a small seeded PRNG, so that a failing torture can be replayed with its seed.
export function makePrng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Starts the run, then kills and resumes it until `minKills` kills are done and every point was hit;
// then lets a resume end on its own.
export async function torture(options: TortureOptions): Promise<TortureResult> {
  const { project, log } = options;
  const random = makePrng(options.seed);
  const kills: Kill[] = [];
  const phaseHits = Object.fromEntries(PHASE_POINTS.map((p) => [p.label, 0]));
  // Event points are taken in turn; the turn passes on once the point was really hit.
  let eventTurn = 0;
  const progress = { finished: 0, at: Date.now() };
  for (let cycle = 0; ; cycle += 1) {
    const before = new Set(cycle === 0 ? [] : project.eventNames());
    const child = cycle === 0 ? project.spawn(...options.startArgs) : project.spawn('resume', '--retry-interrupted');
    const event = { kind: 'event' as const, ...EVENT_POINTS[eventTurn % EVENT_POINTS.length]! };
    const done = kills.length >= options.minKills && allHit(kills);
    const point: Point = done ? { kind: 'none' } : cycle === 0 ? event : choosePoint(options, kills, random, event);
    const label = await waitForPoint(project, child, point, before, done ? {} : phaseHits, progress);
    if (label === undefined) return { kills, final: await child.result, phaseHits };
    if (point.kind === 'event' && label === point.label) eventTurn += 1;
    const kill = { cycle, label, afterMs: Date.now() - child.startedAt, lastEvent: '' };
    await child.result;
    kill.lastEvent = (project.eventNames().filter((n) => !n.startsWith('.')).at(-1) ?? '').replace(/^\d+T\d+Z-/, '');
    kills.push(kill);
    log(`kill ${String(kills.length).padStart(2)}: ${label} at +${kill.afterMs} ms; last event ${kill.lastEvent}`);
  }
}

function allHit(kills: Kill[]): boolean {
  const hit = new Set(kills.map((k) => k.label));
  return POINT_LABELS.every((label) => hit.has(label));
}

// Seeded choice, kept able to reach `minKills` before the run can end: the fewer tasks left, the
// more often the kill lands while the new orchestrator takes over (which moves the run on little).
function choosePoint(options: TortureOptions, kills: Kill[], random: () => number, event: Point): Point {
  const need = Math.max(1, options.minKills - kills.length);
  const left = tasksLeft(options);
  // About one wave of tasks completes per cycle that lets the orchestrator work (two tasks run at once).
  // Never three take-over kills in a row: on a slow machine the run would make no progress at all.
  const lastTwoWereLock = kills.length >= 2 && kills.slice(-2).every((k) => k.label.startsWith('while taking over'));
  const lockShare = lastTwoWereLock ? 0 : left <= 1 ? 1 : Math.min(1, Math.max(0.15, (need - left * 0.75) / need));
  const r = random();
  // With more kills needed than tasks left, a random kill comes soon after the take-over: on a fast
  // machine 900 ms can finish the rest of the run.
  const delayMs = Math.floor(random() * (need > left ? 150 : 900));
  if (r < lockShare) return { kind: 'lock' };
  // Near the end a random delay may outlast the rest of the run (fix and verify take a few hundred
  // ms): the event points come before the last task ends, whatever the machine's speed.
  if (r < lockShare + (1 - lockShare) * 0.45 || left <= NEAR_END_TASKS) return event;
  return { kind: 'random', delayMs };
}

// Fails the torture, naming the attempts in flight and what their folders hold, when no attempt finished for STALL_MS.
function checkProgress(project: RecoveryProject, progress: { finished: number; at: number }): void {
  const events = project.events();
  const finished = events.filter((e) => e.event === 'task_finished');
  if (finished.length > progress.finished) Object.assign(progress, { finished: finished.length, at: Date.now() });
  if (Date.now() - progress.at < STALL_MS) return;
  const done = new Set(finished.map((e) => `${String(e.task_id)}#${String(e.attempt)}`));
  const open = events.filter((e) => e.event === 'task_started' && !done.has(`${String(e.task_id)}#${String(e.attempt)}`));
  const describeAttempt = (e: Record<string, unknown>) => {
    const dir = join(project.runDir(), 'attempts', String(e.task_id), `a${String(e.attempt)}`);
    const files = existsSync(dir) ? readdirSync(dir).join(', ') : 'no folder';
    return `${String(e.task_id)} a${String(e.attempt)} (${files})`;
  };
  throw new Error(`no attempt finished for ${STALL_MS / 1000} s over the last resumes; in flight: ${open.map(describeAttempt).join('; ') || 'none'}`);
}

function tasksLeft(options: TortureOptions): number {
  const done = new Set(
    options.project
      .events()
      .filter((e) => e.event === 'task_finished' && e.status === 'completed')
      .map((e) => String(e.task_id)),
  );
  return options.expectedTasks.filter((task) => !done.has(task)).length;
}

// Waits for the point and kills the orchestrator there; undefined when it ended first.
async function waitForPoint(project: RecoveryProject, child: Orchestrator, point: Point, before: Set<string>, phaseHits: Record<string, number>, progress: { finished: number; at: number }): Promise<string | undefined> {
  let takeoverAt: number | undefined;
  let checkedAt = 0;
  const kill = (label: string) => (child.kill() ? label : undefined);
  while (!child.exited) {
    if (Date.now() - child.startedAt > CYCLE_LIMIT_MS) throw new Error(`the orchestrator (pid ${child.pid}) neither reached "${describe(point)}" nor ended in ${CYCLE_LIMIT_MS} ms`);
    if (Date.now() - checkedAt > 500) {
      checkedAt = Date.now();
      checkProgress(project, progress);
    }
    const fresh = project.eventNames().filter((name) => !before.has(name) && !name.startsWith('.'));
    // Once the run's end is in the log there is nothing left to resume: the orchestrator ends on its own.
    if (fresh.some((name) => RUN_END.test(name))) {
      await sleep(POLL_MS);
      continue;
    }
    if (takeoverAt === undefined && fresh.some((name) => TAKEOVER.test(name))) takeoverAt = Date.now();
    for (const phase of PHASE_POINTS) {
      if (phase.label in phaseHits && phaseHits[phase.label]! < phase.want && fresh.some((name) => phase.pattern.test(name))) {
        phaseHits[phase.label]! += 1;
        return kill(phase.label);
      }
    }
    if (point.kind === 'lock' && lockHolder(project) === child.pid) return kill('while taking over (lock held, before run_resumed)');
    if (point.kind === 'event' && fresh.some((name) => point.pattern.test(name))) return kill(point.label);
    if (takeoverAt !== undefined && point.kind !== 'none') {
      const since = Date.now() - takeoverAt;
      if (point.kind === 'random' && since >= point.delayMs) return kill(`random, ${point.delayMs} ms after take-over`);
      if (point.kind !== 'random' && since >= FALLBACK_MS) return kill(`${describe(point)}: not seen in ${FALLBACK_MS} ms, killed anyway`);
    }
    await sleep(POLL_MS);
  }
  return undefined;
}

function describe(point: Point): string {
  if (point.kind === 'none') return 'its end';
  return point.kind === 'event' ? point.label : point.kind === 'lock' ? 'while taking over' : `random ${point.delayMs} ms`;
}

function lockHolder(project: RecoveryProject): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(project.runDir(), 'lock.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

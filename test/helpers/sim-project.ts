// A temporary project wired to the sim agent, and readers of what a run left in it: events, status, ledger, attempt times.
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRunFiles, type RunFiles } from '../../src/log/read.js';
import { resolveRun, type RunPaths } from '../../src/log/write.js';
import type { EventName, EventOf } from '../../src/log/schema.js';
import { toJson } from '../../src/commands/follow/status.js';
import { loadRunView } from '../../src/log/read-view.js';
import { makeProject, type StatusJson, type TestProject } from './project.js';
import { ROOT } from './team.js';
import type { LedgerEntry } from '../../workers/sim/ledger.js';

// The shared sim scenarios.
export const SCENARIOS_DIR = join(ROOT, 'test/fixtures/scenarios');

// The sim agent's entry in `.team/config.json`; the scenario sits in the project as scenario.json.
export const SIM_AGENT = { adapter: 'sim', scenario: 'scenario.json' } as const;

export type RunEvents = RunFiles['events'];

export interface RunRead extends RunFiles {
  runId: string;
  paths: RunPaths;
}

// One line of the sim's ledger: an attempt that did its work (the sim's own type).
export type LedgerLine = LedgerEntry;

export interface SimProject extends TestProject {
  /** The latest run, as the checkpoint reader returns it. */
  readRun(): RunRead;
  /** The document `team status --json` prints for the latest run, read in this process. */
  statusView(): StatusJson;
  /** Every line of the sim's ledger in the project. */
  ledger(): LedgerLine[];
}

// A new project whose config routes `--agent sim` to `scenario`: a fixture name (e.g.
// `plan-cycle`, `e2e-diamond`) or a scenario object; `config` is merged into `.team/config.json`.
export function makeSimProject(scenario: string | object, config: Record<string, unknown> = {}): SimProject {
  const project = makeProject();
  const scenarioFile = join(project.dir, 'scenario.json');
  if (typeof scenario === 'string') copyFileSync(join(SCENARIOS_DIR, `${scenario}.json`), scenarioFile);
  else project.write('scenario.json', JSON.stringify(scenario, null, 2));
  const agents = { sim: SIM_AGENT, ...((config.agents as Record<string, unknown> | undefined) ?? {}) };
  project.write('.team/config.json', JSON.stringify({ ...config, agents }, null, 2));
  return {
    ...project,
    readRun() {
      const paths = resolveRun(project.dir, undefined);
      return { ...readRunFiles(paths), runId: paths.runId, paths };
    },
    statusView() {
      return toJson(loadRunView(resolveRun(project.dir, undefined), project.dir), false);
    },
    ledger() {
      const file = join(project.dir, '.team', 'sim-ledger.jsonl');
      if (!existsSync(file)) return [];
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as LedgerLine);
    },
  };
}

// Whether the latest run of `project` started an attempt of `task`; false while it has no readable run yet.
export function hasSpawned(project: Pick<SimProject, 'readRun'>, task: string): boolean {
  try {
    return eventsOf(project.readRun().events, 'attempt_spawned').some((e) => e.task_id === task);
  } catch {
    return false;
  }
}

// The events of one name, in the order written.
export function eventsOf<N extends EventName>(events: RunEvents, name: N): Array<EventOf<N> & { file: string }> {
  return events.filter((e) => e.event === name) as unknown as Array<EventOf<N> & { file: string }>;
}

// When one attempt ran, from its task_started and task_finished `at`.
export interface AttemptSpan {
  task: string;
  attempt: number;
  stage: string;
  status: string;
  start: number;
  end: number;
}

// The spans of the attempts of the given stages; an attempt with no terminal event ends at +Infinity.
export function attemptSpans(events: RunEvents, stages: string[] = ['team-exec']): AttemptSpan[] {
  const spans = new Map<string, AttemptSpan>();
  for (const e of eventsOf(events, 'task_started')) {
    if (!stages.includes(e.stage)) continue;
    spans.set(`${e.task_id}#${e.attempt}`, { task: e.task_id, attempt: e.attempt, stage: e.stage, status: 'running', start: Date.parse(e.at), end: Infinity });
  }
  for (const e of eventsOf(events, 'task_finished')) {
    const span = spans.get(`${e.task_id}#${e.attempt}`);
    if (span) Object.assign(span, { status: e.status, end: Date.parse(e.at) });
  }
  return [...spans.values()];
}

// The most spans running at one instant; a span that ends when another starts does not overlap it.
export function maxConcurrent(spans: AttemptSpan[]): number {
  const points = spans.flatMap((s) => [
    { at: s.start, delta: 1 },
    { at: s.end, delta: -1 },
  ]);
  points.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let running = 0;
  let most = 0;
  for (const p of points) {
    running += p.delta;
    most = Math.max(most, running);
  }
  return most;
}

// True when every span of the list was running at one same instant.
export function allOverlap(spans: AttemptSpan[]): boolean {
  return Math.max(...spans.map((s) => s.start)) < Math.min(...spans.map((s) => s.end));
}

// A `.team/config.json` agent entry for a command agent run by `sh -c script`.
export function shellAgent(script: string): { adapter: 'command'; command: string; args: string[] } {
  return { adapter: 'command', command: 'sh', args: ['-c', script] };
}

// Every pipeline role routed to `agent`, plus any `extra` roles.
export function allRoles(agent: string, extra: Record<string, string> = {}): Record<string, string> {
  return { planner: agent, analyst: agent, executor: agent, debugger: agent, verifier: agent, architect: agent, ...extra };
}

// A project wired to the sim agent for `team ralph` runs, and readers of what a run left on disk.
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { makeProject, type TestProject } from '../helpers/project.js';
import { CLI, ROOT, type TeamResult } from '../helpers/team.js';

// Short runs: no fsync (a killed process loses nothing the kernel holds) and a one-second grace on stop.
const SHORT_RUN = { fsync: false, shutdownTimeoutMs: 1000 };

// One event file of a run, as written; fields beyond `event` depend on its name.
export interface LogEvent {
  event: string;
  file: string;
  task_id?: string;
  attempt?: number;
  stage?: string;
  status?: string;
  iteration?: number;
  loop?: number;
  verdict?: string;
  reasons?: string[];
  reason?: string;
  defects?: Array<{ id: string; description: string; task?: string }>;
  handle?: { pid: number; pidStart: number; pgid: number };
}

// One line of the sim's ledger: an attempt that did its work.
export interface LedgerLine {
  task: string;
  attempt: number;
  stage: string;
  pid: number;
}

// A `team ralph` process left running in the background.
export interface Orchestrator {
  pid: number;
  exited: () => boolean;
  done: Promise<TeamResult>;
}

// Waits for an event of a ralph run (test/helpers/wait-event.ts), failing at once when its orchestrator ended first.
export const RALPH_WAIT_MS = 120_000;
export function whileRunning(orchestrator: Orchestrator): { timeoutMs: number; stopIf: () => string | undefined } {
  return { timeoutMs: RALPH_WAIT_MS, stopIf: () => (orchestrator.exited() ? `the orchestrator (pid ${orchestrator.pid}) ended` : undefined) };
}

export interface RalphProject extends TestProject {
  /** `team ralph <args> --agent sim`, to its end. */
  ralph(...args: string[]): Promise<TeamResult>;
  /** `team ralph <args> --agent sim` in the background. */
  startRalph(...args: string[]): Orchestrator;
  runId(): string;
  events(): LogEvent[];
  ledger(): LedgerLine[];
  /** The run's handoffs in order: file name and text. */
  handoffs(): Array<{ name: string; text: string }>;
}

// A new project whose `.team/config.json` routes the sim agent to the fixture `test/fixtures/scenarios/<scenario>.json`.
export function makeRalphProject(scenario: string, config: { team?: Record<string, unknown>; ralph?: Record<string, unknown> } = {}): RalphProject {
  const project = makeProject();
  copyFileSync(join(ROOT, 'test/fixtures/scenarios', `${scenario}.json`), join(project.dir, 'scenario.json'));
  const full = { ...config, team: { ...SHORT_RUN, ...config.team }, agents: { sim: { adapter: 'sim', scenario: 'scenario.json' } } };
  project.write('.team/config.json', JSON.stringify(full, null, 2));
  const runId = () => readFileSync(join(project.dir, '.team/runs/current'), 'utf8').trim();
  const events = () => readEvents(project.eventsDir(runId()));
  return {
    ...project,
    ralph: (...args) => project.team('ralph', ...args, '--agent', 'sim'),
    startRalph: (...args) => startInBackground(project.dir, ['ralph', ...args, '--agent', 'sim']),
    runId,
    events,
    ledger() {
      const file = join(project.dir, '.team/sim-ledger.jsonl');
      if (!existsSync(file)) return [];
      return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as LedgerLine);
    },
    handoffs() {
      const dir = join(project.runDir(runId()), 'handoffs');
      return readdirSync(dir).sort().map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
    },
  };
}

// Every event file of a run, in the order written (file names sort that way); temporary files are skipped.
export function readEvents(eventsDir: string): LogEvent[] {
  return readdirSync(eventsDir)
    .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
    .sort()
    .map((name) => ({ ...(JSON.parse(readFileSync(join(eventsDir, name), 'utf8')) as Omit<LogEvent, 'file'>), file: name }));
}

export function eventsNamed(events: LogEvent[], name: string): LogEvent[] {
  return events.filter((e) => e.event === name);
}

// The lines of the final summary a run prints on stderr, from its `── run` line on.
export function summaryLines(stderr: string): string[] {
  const lines = stderr.split('\n');
  const start = lines.findIndex((line) => line.startsWith('── run '));
  return start === -1 ? [] : lines.slice(start).map((line) => line.trim()).filter((line) => line !== '');
}

// Key of one attempt, `task#attempt`, and the keys that occur more than once.
export function duplicates(keys: string[]): string[] {
  return [...new Set(keys.filter((key, i) => keys.indexOf(key) !== i))];
}

function startInBackground(cwd: string, args: string[]): Orchestrator {
  const child = execa('node', [CLI, ...args], { cwd, reject: false, stdin: 'ignore', stripFinalNewline: false });
  let ended = false;
  const done = child.then((r) => {
    ended = true;
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  });
  if (child.pid === undefined) throw new Error('team ralph did not start');
  return { pid: child.pid, exited: () => ended, done };
}

// A sim project for crash-recovery tests: the built `team` CLI run as separate processes (some of
// them killed with SIGKILL), and readers of what the runs left on disk.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { sweepRun } from './recovery-procs.js';
import { CLI, ROOT } from './team.js';
import type { LedgerEntry } from '../../workers/sim/ledger.js';

export interface CliResult {
  exitCode: number | undefined;
  signal: string | undefined;
  stdout: string;
  stderr: string;
}

// One `team` process we started; only its own pid is ever signalled.
export interface Orchestrator {
  pid: number;
  startedAt: number;
  exited: boolean;
  result: Promise<CliResult>;
  /** SIGKILL to this pid; true when it was still running. */
  kill(): boolean;
}

// One line of the sim's ledger: an attempt that did its work (the sim's own type).
export type LedgerLine = LedgerEntry;

export interface RecoveryProject {
  dir: string;
  /** TMUX_TMPDIR of every CLI call, when the project uses tmux workers. */
  tmuxDir?: string;
  env: Record<string, string | undefined>;
  team(...args: string[]): Promise<CliResult>;
  spawn(...args: string[]): Orchestrator;
  /** `spawn` with more environment variables for this one process. */
  spawnWith(env: Record<string, string | undefined>, ...args: string[]): Orchestrator;
  runId(): string;
  runDir(): string;
  eventsDir(): string;
  /** Event file names of the latest run, sorted (temporary files included). */
  eventNames(): string[];
  /** Parsed event files of the latest run, in name order (temporary files left out). */
  events(): Array<Record<string, unknown> & { file: string }>;
  ledger(): LedgerLine[];
  statusJson(): Promise<StatusJson>;
  /** A full copy of the project (runs, ledger) in a new folder. */
  copy(): RecoveryProject;
}

// The parts of `team status --json` these tests read.
export interface StatusJson {
  status: string;
  stage: string;
  tasks: Array<{ id: string; status: string; attempts: Array<{ attempt: number; status: string; evidence: string }> }>;
  attention: { uncertain: unknown[]; malformed: Array<{ file: string; reason: string }>; conflicts: unknown[] };
}

export const RECOVERY_SCENARIOS = join(ROOT, 'test/fixtures/scenarios');

const made: Array<{ dir: string; tmuxDir?: string; orchestrators: Orchestrator[] }> = [];

// A project whose `sim` agent plays `recovery-<name>.json`; `tmux` gives it a private TMUX_TMPDIR.
export function makeRecoveryProject(scenario: string, options: { tmux?: boolean; config?: Record<string, unknown>; env?: Record<string, string> } = {}): RecoveryProject {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-recovery-'));
  const tmuxDir = options.tmux ? mkdtempSync(join(tmpdir(), 'teamline-recovery-tmux-')) : undefined;
  mkdirSync(join(dir, '.team'), { recursive: true });
  cpSync(join(RECOVERY_SCENARIOS, `recovery-${scenario}.json`), join(dir, 'scenario.json'));
  const config = { ...options.config, agents: { sim: { adapter: 'sim', scenario: 'scenario.json' } } };
  writeFileSync(join(dir, '.team', 'config.json'), JSON.stringify(config, null, 2));
  return openProject(dir, tmuxDir, options.env ?? {});
}

function openProject(dir: string, tmuxDir: string | undefined, extraEnv: Record<string, string>): RecoveryProject {
  const entry = { dir, tmuxDir, orchestrators: [] as Orchestrator[] };
  made.push(entry);
  // A private tmux, and nothing of an outer tmux or an outer run leaks into the CLI.
  const env: Record<string, string | undefined> = { TMUX: undefined, TMUX_PANE: undefined, TEAM_SIM_LEDGER: undefined, TEAM_SIM_SCENARIO: undefined, TMUX_TMPDIR: tmuxDir, ...extraEnv };
  const spawnWith = (more: Record<string, string | undefined>, ...args: string[]): Orchestrator => {
    const child = execa('node', [CLI, ...args], { cwd: dir, env: { ...env, ...more }, reject: false, stdin: 'ignore', detached: true });
    const orchestrator = toOrchestrator(child);
    entry.orchestrators.push(orchestrator);
    return orchestrator;
  };
  const spawn = (...args: string[]): Orchestrator => spawnWith({}, ...args);
  const runId = () => readFileSync(join(dir, '.team', 'runs', 'current'), 'utf8').trim();
  const runDir = () => join(dir, '.team', 'runs', runId());
  const eventsDir = () => join(runDir(), 'events');
  // Empty until the run and its events folder exist.
  const eventNames = () => (existsSync(join(dir, '.team', 'runs', 'current')) && existsSync(eventsDir()) ? readdirSync(eventsDir()).sort() : []);
  return {
    dir,
    tmuxDir,
    env,
    team: (...args) => spawn(...args).result,
    spawn,
    spawnWith,
    runId,
    runDir,
    eventsDir,
    eventNames,
    events: () =>
      eventNames()
        .filter((name) => !name.startsWith('.'))
        .map((name) => ({ ...(JSON.parse(readFileSync(join(eventsDir(), name), 'utf8')) as Record<string, unknown>), file: name })),
    ledger: () => readLedger(join(dir, '.team', 'sim-ledger.jsonl')),
    async statusJson() {
      const result = await spawn('status', '--json').result;
      if (result.exitCode !== 0) throw new Error(`team status --json exited ${result.exitCode}: ${result.stderr}`);
      return JSON.parse(result.stdout) as StatusJson;
    },
    copy() {
      const copyDir = mkdtempSync(join(tmpdir(), 'teamline-recovery-'));
      cpSync(dir, copyDir, { recursive: true });
      return openProject(copyDir, tmuxDir, extraEnv);
    },
  };
}

function toOrchestrator(child: ResultPromise<{ reject: false; stdin: 'ignore'; detached: true }>): Orchestrator {
  if (child.pid === undefined) throw new Error('could not start the team CLI');
  const orchestrator: Orchestrator = {
    pid: child.pid,
    startedAt: Date.now(),
    exited: false,
    result: child.then((r) => {
      orchestrator.exited = true;
      return { exitCode: r.exitCode, signal: r.signal, stdout: String(r.stdout), stderr: String(r.stderr) };
    }),
    kill() {
      if (orchestrator.exited) return false;
      try {
        process.kill(orchestrator.pid, 'SIGKILL');
        return true;
      } catch {
        return false;
      }
    },
  };
  return orchestrator;
}

// Every well-formed line of a sim ledger.
export function readLedger(file: string): LedgerLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LedgerLine);
}

// The built module at `dist/<path>`, typed as its source: the tests read runs with the CLI's own code.
export async function importBuilt<T>(path: string): Promise<T> {
  return (await import(pathToFileURL(join(ROOT, 'dist', path)).href)) as T;
}

// After each test: orchestrators we started, worker processes and tmux servers of our runs go; folders are removed.
export async function removeRecoveryProjects(): Promise<void> {
  const entries = made.splice(0);
  for (const entry of entries) {
    for (const orchestrator of entry.orchestrators) orchestrator.kill();
    await Promise.all(entry.orchestrators.map((o) => o.result));
    const runsDir = join(entry.dir, '.team', 'runs');
    const runs = existsSync(runsDir) ? readdirSync(runsDir).filter((name) => name !== 'current') : [];
    for (const run of runs) await sweepRun(join(runsDir, run), run, entry.tmuxDir);
  }
  // RECOVERY_KEEP=1 keeps the project folders to look at after a failure.
  if (process.env.RECOVERY_KEEP) return console.log(`kept: ${entries.map((e) => e.dir).join(' ')}`);
  for (const entry of entries) rmSync(entry.dir, { recursive: true, force: true });
  for (const dir of new Set(entries.flatMap((e) => (e.tmuxDir ? [e.tmuxDir] : [])))) rmSync(dir, { recursive: true, force: true });
}

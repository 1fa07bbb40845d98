// `team list [--json] [--store URL]`: the project's runs (or the store's), oldest first: id, task,
// mode, status, started, duration, cost, session.
import { foldRun, type RunView } from '../../log/fold/fold.js';
import { openStore } from '../../store/open.js';
import { foldInput, withStore, type RunStore } from '../../store/types.js';
import { notDrivenLine } from '../../views/status/render.js';
import { optionalString, parseFlags } from '../args/args.js';
import { FLAGS } from '../args/flags.js';
import { openProject } from '../args/project.js';
import { UnreadableRunError } from '../../sys/errors.js';
import { terminalLine } from '../../sys/terminal-text.js';
import { runStartMs } from '../../log/fold/clock.js';
import { parseLogTime } from '../../log/time.js';

export interface RunRow {
  id: string;
  task: string;
  mode: string;
  status: string;
  /** An orchestrator drives the run now (its lock's holder is alive). */
  driven: boolean;
  /** An orchestrator started it (a run of `team state` commands is driven by hand). */
  orchestrated: boolean;
  started: string;
  seconds: number;
  costUsd: number;
  session: string;
}

// Prints one line per run (a table), or a JSON array with --json; a project (or store) with no run says so.
export async function listCommand(argv: string[]): Promise<number> {
  const args = parseFlags(argv, FLAGS.list, 'team list');
  const project = openProject(args, { readsStore: true, readOnly: true });
  const store = await openStore(project, optionalString(args, 'store'), 'list');
  const { rows, unreadable } = await withStore(store, () => readRows(store, project.dir));
  if (args.values.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else if (rows.length === 0) process.stdout.write(`no run in ${store.where}\n`);
  else {
    process.stdout.write(renderRows(rows));
    for (const r of rows) {
      const line = notDrivenLine({ status: r.status, orchestrated: r.orchestrated, run: { run_id: r.id } }, r.driven);
      if (line) process.stdout.write(`${terminalLine(`${r.id}: ${line}`)}\n`);
    }
  }
  // Told on stderr, so that the table and the JSON stay the runs that could be read.
  for (const u of unreadable) process.stderr.write(`${terminalLine(`team list: run ${u.id} is not listed: ${u.reason}`)}\n`);
  return 0;
}

// Every run of the store, folded from its log; a run of the files that cannot be read (a damaged
// run.json) is named with why, and never hides the others.
export async function readRows(store: RunStore, projectDir: string): Promise<{ rows: RunRow[]; unreadable: Array<{ id: string; reason: string }> }> {
  const rows: RunRow[] = [];
  const unreadable: Array<{ id: string; reason: string }> = [];
  for (const id of await store.runIds()) {
    try {
      const read = await store.read(id);
      rows.push(rowOf(id, foldRun(foldInput(read), projectDir), endedAt(read.events), await store.hasWriter(id)));
    } catch (error) {
      if (!(error instanceof UnreadableRunError)) throw error;
      unreadable.push({ id, reason: error.message });
    }
  }
  return { rows, unreadable };
}

// When a run ended: its end record's time (what `team clean` records later does not lengthen it),
// else its last event's.
export function endedAt(events: ReadonlyArray<{ event: string; at: string }>): string | undefined {
  for (let i = events.length - 1; i >= 0; i -= 1) if (RUN_ENDS.has(events[i]!.event)) return events[i]!.at;
  return events.at(-1)?.at;
}

const RUN_ENDS = new Set(['run_completed', 'run_failed', 'run_cancelled', 'run_stopped']);

// A run's row, from its view, the time of its last event (a run still going lasts until now) and
// whether an orchestrator drives it.
export function rowOf(id: string, view: RunView, lastAt: string | undefined, driven: boolean): RunRow {
  const running = view.status === 'running' || view.status === 'cancelling';
  const end = running ? Date.now() : parseLogTime(lastAt ?? view.run.created_at);
  return {
    id,
    task: view.run.task ?? '',
    mode: view.run.mode ?? 'team',
    status: view.status,
    driven,
    orchestrated: view.orchestrated,
    started: new Date(runStartMs(view)).toISOString(),
    seconds: Math.max(0, Math.round((end - runStartMs(view)) / 1000)),
    costUsd: Number(view.usage.run.costUsd.toFixed(6)),
    session: view.run.session,
  };
}

function renderRows(rows: RunRow[]): string {
  const table = [['RUN', 'MODE', 'STATUS', 'STARTED', 'DURATION', 'COST', 'SESSION', 'TASK']];
  for (const r of rows) {
    const task = terminalLine(r.task).replace(/\s+/g, ' ').trim();
    // Every cell safe for a terminal: run.json and the log are files anyone can write.
    const status = notDrivenLine({ status: r.status, orchestrated: r.orchestrated, run: { run_id: r.id } }, r.driven) ? `${r.status}, nothing drives it` : r.status;
    table.push([r.id, r.mode, status, r.started.slice(0, 19).replace('T', ' '), duration(r.seconds), `$${r.costUsd.toFixed(4)}`, r.session || '-', task.length > 60 ? `${task.slice(0, 57)}...` : task].map(terminalLine));
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  return table.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

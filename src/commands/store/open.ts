// A run read from the PostgreSQL store for the commands that show runs (status, watch, report):
// the named run or the store's latest, folded by the same view code as a run of the files.
import type { RunFiles } from '../../log/read.js';
import { foldRun, type RunView } from '../../log/fold.js';
import { UsageError } from '../../sys/errors.js';
import { describeUrl } from '../../store/pg-connect.js';
import { PgStore } from '../../store/pg-store.js';
import type { RunRead } from '../../store/types.js';

// Opens the store under the command's name (pg_stat_activity shows it).
export function openStore(url: string, command: string): Promise<PgStore> {
  return PgStore.open(url, `teamline ${command} pid ${process.pid}`);
}

// The run to show: the named one, else the store's latest; a store with no run is bad input.
export async function pickRun(store: PgStore, url: string, runId: string | undefined): Promise<string> {
  const id = runId ?? (await store.current());
  if (id === undefined) throw new UsageError(`no run in ${describeUrl(url)}: the store has none (runs are written to PostgreSQL by a writer; the files under .team/runs need no --store)`);
  return id;
}

// A store's read as the fold's input, shaped as readRunFiles gives it for the files.
export function foldInput(read: RunRead): Pick<RunFiles, 'run' | 'events' | 'approvals' | 'problems'> {
  return { run: read.run, events: read.events, approvals: read.approvals, problems: read.malformed };
}

// The view of a store's read, as `team status` shows a run of the files.
export function foldStoreRun(read: RunRead, projectDir: string): RunView {
  return foldRun(foldInput(read), projectDir);
}

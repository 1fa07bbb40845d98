// `team report --store URL`: the report's data of a run read from PostgreSQL, made by the same code
// as for the files. Handoff texts are files of the writer's machine: the page names them, not stored yet.
import { loggedHandoffs, makeReportData, type ReportData } from '../../views/report/data.js';
import { hasWriter } from '../../store/pg-writer-lock.js';
import { foldStoreRun, openStore, pickRun } from './open.js';

// The named run's data (else the store's latest).
export async function storeReportData(url: string, runId: string | undefined, projectDir: string): Promise<ReportData> {
  const store = await openStore(url, 'report');
  try {
    const id = await pickRun(store, url, runId);
    const read = await store.read(id);
    // Whether anything drives the run: a writer holds its lock in the store, as `team wait` asks.
    const driven = await hasWriter(store.db, id);
    const view = foldStoreRun(read, projectDir);
    return makeReportData(read, view, loggedHandoffs(view), { driven });
  } finally {
    await store.close();
  }
}

// `team status --store URL`: a run read from the PostgreSQL store, folded and shown as a run of the
// files is (the same text, the same --json document).
import { describeUrl } from '../../store/pg-connect.js';
import { hasWriter } from '../../store/pg-writer-lock.js';
import { printStatus } from '../status.js';
import { foldStoreRun, openStore } from './open.js';

// Prints the named run, else the store's latest; a store with no run says so.
export async function storeStatus(url: string, runId: string | undefined, projectDir: string, json: boolean): Promise<number> {
  const store = await openStore(url, 'status');
  try {
    const id = runId ?? (await store.current());
    if (id === undefined) {
      if (json) process.stdout.write(`${JSON.stringify({ run: null, approvals: [], message: 'no run' })}\n`);
      else process.stdout.write(`no run in ${describeUrl(url)}: the store has no run, and so no approvals\n`);
      return 0;
    }
    const read = await store.read(id);
    const view = foldStoreRun(read, projectDir);
    printStatus(view, id, json, await hasWriter(store.db, id));
    return 0;
  } finally {
    await store.close();
  }
}

// `team list --store URL` (or team.store): the store's runs, each folded as `team status` folds it.
import type { RunRow } from '../list.js';
import { rowOf } from '../list.js';
import { hasWriter } from '../../store/pg-writer-lock.js';
import { foldStoreRun, openStore } from './open.js';

// Every run of the store, oldest first.
export async function storeRows(url: string, projectDir: string): Promise<RunRow[]> {
  const store = await openStore(url, 'list');
  try {
    const rows: RunRow[] = [];
    for (const id of await store.runIds()) {
      const read = await store.read(id);
      rows.push(rowOf(id, foldStoreRun(read, projectDir), await hasWriter(store.db, id)));
    }
    return rows;
  } finally {
    await store.close();
  }
}

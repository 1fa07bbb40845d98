// `team wait --store URL` (or team.store): a run on the PostgreSQL store, folded again when its
// log grew, and driven while a writer holds its lock there. The wait's mark (what changed since the
// last wait) is kept in this project's folder of the run.
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import type { RunView } from '../../log/fold.js';
import { storeRunPaths } from '../../run/store-run.js';
import { hasWriter } from '../../store/pg-writer-lock.js';
import { foldStoreRun, openStore, pickRun } from './open.js';

export async function storeSource(url: string, runId: string | undefined, projectDir: string) {
  const store = await openStore(url, 'wait');
  try {
    const id = await pickRun(store, url, runId);
    const runDir = storeRunPaths(projectDir, id).runDir;
    mkdirSync(runDir, { recursive: true });
    let seen = -1;
    let view: RunView | undefined;
    return {
      runId: id,
      runDir,
      view: async (fresh = false): Promise<RunView> => {
        const count = await store.eventCount(id);
        if (fresh || count !== seen || !view) {
          seen = count;
          view = foldStoreRun(await store.read(id), projectDir);
        }
        return view;
      },
      viewAt: async (count: number): Promise<RunView> => {
        const read = await store.read(id);
        return foldStoreRun({ ...read, events: read.events.slice(0, count) }, projectDir);
      },
      driven: () => hasWriter(store.db, id),
      endings: async ({ branches, story }: RunView) => {
        const handoffs = story.handoffs.flatMap((h) => (h.text !== undefined ? [{ name: basename(h.path), text: h.text }] : []));
        return { places: branches ? { branches } : {}, handoffs };
      },
      close: () => store.close(),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

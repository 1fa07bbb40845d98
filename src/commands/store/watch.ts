// `team watch --store URL`: the live view of a run read from PostgreSQL, each tick a store read
// folded as the files are; a lane's last line is its worker's latest output-tail report.
import { TeamError } from '../../sys/errors.js';
import { describeUrl, StoreUnreachableError } from '../../store/pg-connect.js';
import { hasWriter } from '../../store/pg-writer-lock.js';
import { watchRun, type LiveOptions } from '../../views/watch/live.js';
import { modelOf } from '../../views/watch/model.js';
import { OutputTails } from '../../views/watch/tails.js';
import { foldInput, openStore, pickRun } from './open.js';

// Shows the named run (else the store's latest) until it ends or the person quits.
export async function watchStore(url: string, runId: string | undefined, projectDir: string, options: LiveOptions): Promise<number> {
  const store = await openStore(url, 'watch');
  try {
    const id = await pickRun(store, url, runId);
    const tails = new OutputTails(store, id);
    const where = describeUrl(url);
    await watchRun(async () => {
      try {
        // Driven while a writer holds the run's lock: the check `team wait` makes (wait-store.ts).
        const [read, live] = await Promise.all([store.read(id), hasWriter(store.db, id), tails.read()]);
        const undriven = `no writer holds its lock in ${where}; \`team resume --run ${id} --store ${where}\` continues it`;
        return modelOf({ read: foldInput(read), projectDir, live: () => live, undriven, tail: (task, attempt) => tails.of(task, attempt) });
      } catch (error) {
        // The database lost mid-watch: the reason, never a stack (our own errors pass as they are).
        if (error instanceof TeamError) throw error;
        throw new StoreUnreachableError(url, error as Error);
      }
    }, options);
    return 0;
  } finally {
    await store.close();
  }
}

// `team watch [--run ID] [--store URL]` (and `team status --watch`): the live view of a run, until it ends or q.
import { setTimeout as sleep } from 'node:timers/promises';
import { validateId } from '../../log/guards.js';
import { TeamError } from '../../sys/errors.js';
import { openStore } from '../../store/open.js';
import { StoreOutage } from '../../store/outage.js';

import { storeUrlOf } from '../../store/store-url.js';
import { foldInput, withStore } from '../../store/types.js';
import { watchRun } from '../../views/watch/live.js';
import { modelOf, type WatchModel } from '../../views/watch/model.js';
import { optionalInt, optionalString, parseFlags } from '../args/args.js';
import { FLAGS } from '../args/flags.js';
import { openProject } from '../args/project.js';

// How often the view reads the log, unless --interval says otherwise.
const DEFAULT_INTERVAL_MS = 1000;
// How soon a first read that found the store away is made again.
const OUTAGE_RETRY_MS = 500;

// Shows the latest or named run, each tick a read of its store folded; leaves the run running when
// the person quits.
export async function watchCommand(argv: string[], cmd = 'team watch'): Promise<number> {
  const args = parseFlags(argv, FLAGS.watch, cmd);
  const project = openProject(args, { readsStore: true, readOnly: true });
  const runId = optionalString(args, 'run');
  if (runId !== undefined) validateId(runId, '--run');
  const flag = optionalString(args, 'store');
  const intervalMs = optionalInt(args, 'interval', cmd, 100, 60_000) ?? DEFAULT_INTERVAL_MS;
  const tty = process.stdout.isTTY === true;
  const options = { out: process.stdout, input: tty ? process.stdin : undefined, intervalMs, tty };
  const url = storeUrlOf(flag, project.config);
  // The database away for a while once it was reached (a restart): the view stays as it was and
  // is read again at the next tick, up to team.storeOutageMs.
  const outage = url === undefined ? undefined : new StoreOutage(url, project.config.team.storeOutageMs);
  const store = outage ? await outage.open(() => openStore(project, flag, 'watch'), OUTAGE_RETRY_MS) : await openStore(project, flag, 'watch');
  return withStore(store, async () => {
    const id = outage ? await outage.retry(() => store.pickRun(runId), OUTAGE_RETRY_MS) : await store.pickRun(runId);
    const tails = store.tails(id);
    const undriven = store.resumeHint(id);
    let last: WatchModel | undefined;
    const load = async (): Promise<WatchModel> => {
      try {
        const [read, live] = await Promise.all([store.read(id), store.hasWriter(id), tails.read()]);
        last = modelOf({ read: foldInput(read), projectDir: project.dir, live: () => live, undriven, tail: (task, attempt) => tails.of(task, attempt) });
        outage?.over();
        return last;
      } catch (error) {
        // The database lost mid-watch: the reason, never a stack (our own errors pass as they are).
        if (error instanceof TeamError || outage === undefined) throw error;
        if (outage.absorbs(error)) return last ?? (await sleep(OUTAGE_RETRY_MS), load());
        throw outage.lost(error as Error);
      }
    };
    await watchRun(load, options);
    return 0;
  });
}

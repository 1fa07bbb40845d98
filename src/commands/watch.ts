// `team watch [--run ID] [--store URL]` (and `team status --watch`): the live view of a run, until it ends or q.
import { resolveRun } from '../log/write.js';
import { validateId } from '../log/guards.js';
import { storeUrlOf } from '../store/store-url.js';
import { watchRun } from '../views/watch/live.js';
import { loadWatchModel } from '../views/watch/model.js';
import { optionalInt, optionalString, parseFlags } from './args/args.js';
import { FLAGS } from './args/flags.js';
import { openProject } from './args/project.js';

// How often the view reads the log, unless --interval says otherwise.
const DEFAULT_INTERVAL_MS = 1000;

// Shows the latest or named run; leaves the run running when the person quits. With `--store URL` or
// `team.store`, the run is read from that PostgreSQL database (watch-store.ts, loaded only then).
export async function watchCommand(argv: string[], cmd = 'team watch'): Promise<number> {
  const args = parseFlags(argv, FLAGS.watch, cmd);
  const project = openProject(args, { readsStore: true });
  const runId = optionalString(args, 'run');
  if (runId !== undefined) validateId(runId, '--run');
  const store = storeUrlOf(optionalString(args, 'store'), project.config);
  const intervalMs = optionalInt(args, 'interval', cmd, 100, 60_000) ?? DEFAULT_INTERVAL_MS;
  const tty = process.stdout.isTTY === true;
  const options = { out: process.stdout, input: tty ? process.stdin : undefined, intervalMs, tty };
  if (store) return (await import('./store/watch.js')).watchStore(store, runId, project.dir, options);
  const paths = resolveRun(project.dir, runId);
  await watchRun(() => loadWatchModel(paths), options);
  return 0;
}

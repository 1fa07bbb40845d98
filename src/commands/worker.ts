// `team worker --store URL [--labels a,b] [--max N] [--lease-ttl S] [--cwd DIR]`: pulls attempts from
// the PostgreSQL store and runs them on this machine (src/team-worker/daemon.ts). Its arguments: the
// store, the labels it serves, how many attempts at once, the lease TTL.
import { isPostgresUrl } from '../../config/schema.js';
import { ID_PATTERN } from '../log/guards.js';
import { UsageError } from '../sys/errors.js';
import { runWorker, type WorkerOptions } from '../team-worker/daemon.js';
import { optionalInt, optionalString, parseFlags, requireString } from './args/args.js';
import { FLAGS } from './args/flags.js';
import { openProjectDir } from './args/project-dir.js';

// Attempts one worker runs at once unless --max says otherwise.
const DEFAULT_MAX = 1;
// A lease lives this long without renewal (docs/scale-out.md): a worker silent for longer is gone.
const DEFAULT_LEASE_TTL_S = 60;

// Reads argv; a bad argument is a usage error naming it.
export function parseWorkerArgs(argv: string[]): WorkerOptions {
  const name = 'team worker';
  const args = parseFlags(argv, FLAGS.worker, name);
  if (args.positionals.length > 0) throw new UsageError(`${name}: unexpected argument "${args.positionals[0]}"`);
  const storeUrl = requireString(args, 'store', name);
  if (!isPostgresUrl(storeUrl)) throw new UsageError(`${name}: --store must be a PostgreSQL URL (postgres://user:password@host:port/database)`);
  const labels = (optionalString(args, 'labels') ?? '').split(',').filter((label) => label !== '');
  const bad = labels.find((label) => !ID_PATTERN.test(label));
  if (bad !== undefined || optionalString(args, 'labels') === '') throw new UsageError(`${name}: --labels must be a comma-separated list of names (letters, digits, . _ -), not "${optionalString(args, 'labels')}"`);
  return {
    storeUrl,
    labels,
    max: optionalInt(args, 'max', name, 1, 20) ?? DEFAULT_MAX,
    leaseTtlMs: (optionalInt(args, 'lease-ttl', name, 2, 3600) ?? DEFAULT_LEASE_TTL_S) * 1000,
    projectDir: openProjectDir(args),
  };
}

// Runs the worker until SIGTERM or SIGINT; returns its exit code.
export function workerCommand(argv: string[]): Promise<number> {
  return runWorker(parseWorkerArgs(argv));
}

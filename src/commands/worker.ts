// `team worker [--store URL | --store-file FILE] [--labels a,b] [--max N] [--lease-ttl S] [--cwd DIR]`:
// pulls attempts from the PostgreSQL store and runs them on this machine (src/team-worker/daemon.ts).
// Its arguments: the store, the labels it serves, how many attempts at once, the lease TTL.
import { isPostgresUrl } from '../../config/schema.js';
import { ID_PATTERN } from '../log/guards.js';
import { UsageError } from '../sys/errors.js';
import { readRegularFile } from '../sys/regular-file.js';
import { runWorker, type WorkerOptions } from '../team-worker/daemon.js';
import { optionalInt, optionalString, parseFlags, type ParsedArgs } from './args/args.js';
import { FLAGS } from './args/flags.js';
import { openProject } from './args/project.js';
import { openProjectDir } from './args/project-dir.js';

// Attempts one worker runs at once unless --max says otherwise.
const DEFAULT_MAX = 1;
// A lease lives this long without renewal (docs/scale-out.md): a worker silent for longer is gone.
const DEFAULT_LEASE_TTL_S = 60;
// A store file holds one URL; anything larger is not one.
const STORE_FILE_BYTES = 4096;

// Reads argv; a bad argument is a usage error naming it.
export function parseWorkerArgs(argv: string[]): WorkerOptions {
  const name = 'team worker';
  const args = parseFlags(argv, FLAGS.worker, name);
  if (args.positionals.length > 0) throw new UsageError(`${name}: unexpected argument "${args.positionals[0]}"`);
  const projectDir = openProjectDir(args);
  const storeUrl = storeOf(args, projectDir, name);
  const labels = (optionalString(args, 'labels') ?? '').split(',').filter((label) => label !== '');
  const bad = labels.find((label) => !ID_PATTERN.test(label));
  if (bad !== undefined || optionalString(args, 'labels') === '') throw new UsageError(`${name}: --labels must be a comma-separated list of names (letters, digits, . _ -), not "${optionalString(args, 'labels')}"`);
  return {
    storeUrl,
    labels,
    max: optionalInt(args, 'max', name, 1, 20) ?? DEFAULT_MAX,
    leaseTtlMs: (optionalInt(args, 'lease-ttl', name, 2, 3600) ?? DEFAULT_LEASE_TTL_S) * 1000,
    projectDir,
  };
}

// The store's URL, from the first of --store, --store-file, TEAM_STORE and team.store of the
// folder's config, so that no password need be on a command line (`ps` shows it to every user).
function storeOf(args: ParsedArgs, projectDir: string, name: string): string {
  const flag = optionalString(args, 'store');
  const file = optionalString(args, 'store-file');
  if (flag !== undefined && file !== undefined) throw new UsageError(`${name}: give --store or --store-file, not both`);
  const [url, from] =
    flag !== undefined ? [flag, '--store'] : file !== undefined ? [readStoreFile(file, name), `--store-file ${file}`] : process.env.TEAM_STORE ? [process.env.TEAM_STORE, 'TEAM_STORE'] : fromConfig(args, projectDir);
  if (url === undefined) throw new UsageError(`${name}: no store: give --store URL, --store-file FILE, TEAM_STORE, or team.store in ${projectDir}/.team/config.json`);
  if (!isPostgresUrl(url)) throw new UsageError(`${name}: ${from} must be a PostgreSQL URL (postgres://user:password@host:port/database)`);
  return url;
}

// The first line of a store file: a regular file, never a FIFO or a link, read within a bound.
function readStoreFile(file: string, name: string): string {
  const read = readRegularFile(file, STORE_FILE_BYTES);
  if (!read.ok) throw new UsageError(`${name}: --store-file ${file}: ${read.reason}`);
  return read.text.split('\n').map((line) => line.trim()).find((line) => line !== '') ?? '';
}

function fromConfig(args: ParsedArgs, projectDir: string): [string | undefined, string] {
  const project = openProject({ ...args, values: { ...args.values, cwd: projectDir } }, { readsStore: true });
  return [project.config.team.store, `team.store in ${project.configFile ?? 'the config'}`];
}

// What the agents this worker starts must not inherit: the store's URL and its password. A password
// given as PGPASSWORD goes into the URL the worker connects with, then leaves the environment.
function keepStoreFromAgents(url: string): string {
  const password = process.env.PGPASSWORD;
  delete process.env.TEAM_STORE;
  delete process.env.PGPASSWORD;
  if (!password) return url;
  const withPassword = new URL(url);
  if (withPassword.password !== '' || withPassword.username === '') return url;
  withPassword.password = password;
  return withPassword.href;
}

// Runs the worker until SIGTERM or SIGINT; returns its exit code.
export function workerCommand(argv: string[]): Promise<number> {
  const options = parseWorkerArgs(argv);
  return runWorker({ ...options, storeUrl: keepStoreFromAgents(options.storeUrl) });
}

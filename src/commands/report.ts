// `team report [--run ID] [--out FILE] [--store URL]`: one self-contained HTML page of a run, from its log alone.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '../sys/atomic.js';
import { readRunFiles } from '../log/read.js';
import { resolveRun } from '../log/write.js';
import { foldRun } from '../log/fold.js';
import { liveHolder } from '../run/lock.js';
import { validateId } from '../log/guards.js';
import { UsageError } from '../sys/errors.js';
import { folderHandoffs, makeReportData, type ReportData } from '../views/report/data.js';
import { renderReport } from '../views/report/html.js';
import { storeUrlOf } from '../store/store-url.js';
import { optionalString, parseFlags } from './args/args.js';
import { FLAGS } from './args/flags.js';
import { openProject } from './args/project.js';

// Writes the report (default: report.html in the run's folder; for a run of PostgreSQL,
// report-<run>.html in the project) and prints its path.
export function reportCommand(argv: string[]): number | Promise<number> {
  const args = parseFlags(argv, FLAGS.report, 'team report');
  const project = openProject(args, { readsStore: true });
  const runId = optionalString(args, 'run');
  if (runId !== undefined) validateId(runId, '--run');
  const store = storeUrlOf(optionalString(args, 'store'), project.config);
  const outArg = optionalString(args, 'out');
  const out = outArg === undefined ? undefined : checkOut(outArg);
  if (store) {
    return import('./store/report.js')
      .then((m) => m.storeReportData(store, runId, project.dir))
      .then((data) => writeReport(out ?? join(project.dir, `report-${data.run.run_id}.html`), data));
  }
  const paths = resolveRun(project.dir, runId);
  const files = readRunFiles(paths);
  // Whether anything drives the run: the live check `team wait` makes (the lock's holder alive).
  const driven = liveHolder(paths) !== undefined;
  return writeReport(out ?? join(paths.runDir, 'report.html'), makeReportData(files, foldRun(files, project.dir), folderHandoffs(paths), { driven }));
}

// The --out file, refused (exit 2, nothing written) when it is a folder or its folder is missing.
function checkOut(outArg: string): string {
  const out = resolve(outArg);
  if (outArg === '' || (existsSync(out) && statSync(out).isDirectory())) throw new UsageError(`--out: ${out} is a folder, not a file`);
  if (!existsSync(dirname(out))) throw new UsageError(`--out: the folder ${dirname(out)} does not exist`);
  return out;
}

function writeReport(out: string, data: ReportData): number {
  writeFileAtomic(dirname(out), out.slice(dirname(out).length + 1), renderReport(data), { fsync: false });
  process.stdout.write(`${out}\n`);
  return 0;
}

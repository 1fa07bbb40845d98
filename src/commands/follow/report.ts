// `team report [--run ID] [--out FILE] [--store URL]`: one self-contained HTML page of a run, from its log alone.
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { writeFileAtomic } from '../../sys/atomic.js';
import { foldRun } from '../../log/fold/fold.js';
import { validateId } from '../../log/guards.js';
import { UsageError } from '../../sys/errors.js';
import { handoffsOf, makeReportData, type ReportData } from '../../views/report/data.js';
import { renderReport } from '../../views/report/html.js';
import { openStore } from '../../store/open.js';
import { foldInput, withStore } from '../../store/types.js';
import { optionalString, parseFlags } from '../args/args.js';
import { FLAGS } from '../args/flags.js';
import { openProject } from '../args/project.js';

// Writes the report (default: report.html in the run's folder; for a run of PostgreSQL,
// report-<run>.html in the project) and prints its path.
export async function reportCommand(argv: string[]): Promise<number> {
  const args = parseFlags(argv, FLAGS.report, 'team report');
  const project = openProject(args, { readsStore: true, readOnly: true });
  const runId = optionalString(args, 'run');
  if (runId !== undefined) validateId(runId, '--run');
  const flag = optionalString(args, 'store');
  const outArg = optionalString(args, 'out');
  const out = outArg === undefined ? undefined : checkOut(outArg);
  const store = await openStore(project, flag, 'report');
  const data = await withStore(store, async () => {
    const id = await store.pickRun(runId);
    const read = await store.read(id);
    const view = foldRun(foldInput(read), project.dir);
    // Whether anything drives the run: the check `team wait` makes.
    const data = makeReportData(read, view, handoffsOf(store.paths(id), view), { driven: await store.hasWriter(id) });
    return { data, file: out ?? store.reportFile(id) };
  });
  return writeReport(data.file, data.data);
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

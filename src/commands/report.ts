// `team report [--run ID] [--out FILE]`: one self-contained HTML page of a run, from its log alone.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '../../workers/atomic.js';
import { readRunFiles } from '../checkpoint/read.js';
import { resolveRun } from '../checkpoint/store.js';
import { foldRun } from '../checkpoint/view.js';
import { validateId } from '../checkpoint/guards.js';
import { UsageError } from '../errors.js';
import { makeReportData } from '../report/data.js';
import { renderReport } from '../report/html.js';
import { optionalString, parseFlags } from './args.js';
import { openProject, PROJECT_FLAGS } from './project.js';

// Writes the report (default: report.html in the run's folder) and prints its path.
export function reportCommand(argv: string[]): number {
  const args = parseFlags(argv, { ...PROJECT_FLAGS, run: { type: 'string' }, out: { type: 'string' } }, 'team report');
  const project = openProject(args);
  const runId = optionalString(args, 'run');
  const paths = resolveRun(project.dir, runId === undefined ? undefined : validateId(runId, '--run'));
  const outArg = optionalString(args, 'out');
  const out = outArg === undefined ? join(paths.runDir, 'report.html') : resolve(outArg);
  if (outArg !== undefined && (outArg === '' || (existsSync(out) && statSync(out).isDirectory()))) throw new UsageError(`--out: ${out} is a folder, not a file`);
  if (!existsSync(dirname(out))) throw new UsageError(`--out: the folder ${dirname(out)} does not exist`);
  const files = readRunFiles(paths);
  const html = renderReport(makeReportData(files, foldRun(files, project.dir), paths));
  writeFileAtomic(dirname(out), out.slice(dirname(out).length + 1), html, { fsync: false });
  process.stdout.write(`${out}\n`);
  return 0;
}

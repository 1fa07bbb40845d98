// `team doctor`'s check of the command files `team init` installs (/team, /ralph, /cancel,
// /team-status), in the project and under the home folder: each CLI's set there, and current when
// its text is what init would write now (with the bin it was set up with).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { FileReading } from '../../sys/regular-file.js';
import { relative } from 'node:path';
import { expectedInitFiles, readInitFile, readInitManifest } from '../init/current.js';
import { CLIS, type Cli, type InitFile } from '../init/files.js';
import type { Check } from './checks.js';

// One check per CLI and place that has command files; one line of information when none has.
export function checkCommandFiles(projectDir: string, home: string): Check[] {
  const checks: Check[] = [];
  for (const [root, global] of [[projectDir, false], [home, true]] as const) {
    const expected = expectedInitFiles(root, global);
    const written = readInitManifest(root).files;
    for (const cli of CLIS) {
      const files = expected.filter((file) => file.cli === cli);
      const check = files.length > 0 ? checkSet(cli, files, root, global, written) : undefined;
      if (check) checks.push(check);
    }
  }
  if (checks.length === 0) return [{ name: 'command files', status: 'info', detail: 'none installed', fix: 'team init --claude (or --codex, --gemini, --opencode) installs /team for your agent' }];
  return checks;
}

// The files of one CLI that init set up under `root`, against what init would write now.
function checkSet(cli: Cli, files: InitFile[], root: string, global: boolean, written: Record<string, string>): Check | undefined {
  const present = files.filter((file) => existsSync(file.path));
  if (present.length === 0) return undefined;
  const name = `command files ${cli}${global ? ' (global)' : ''}`;
  const init = `team init --${cli}${global ? ' --global' : ''}`;
  const missing = files.length - present.length;
  // A file that cannot be read as a regular file in its place (a FIFO, a link out) counts as changed.
  const texts = new Map(present.map((file) => [file.path, textOf(readInitFile(root, file.path))]));
  const stale = present.filter((file) => texts.get(file.path) !== file.text);
  if (missing === 0 && stale.length === 0) return { name, status: 'ok', detail: `${files.length} current` };
  // A file whose text is not one init wrote (its hash is not in the manifest) was changed by hand.
  const old = stale.filter((file) => written[relative(root, file.path)] === sha256(texts.get(file.path)!));
  const problems = [missing > 0 ? `${missing} of ${files.length} missing` : '', old.length > 0 ? `out of date: ${old.map((file) => relative(root, file.path)).join(', ')}` : '', stale.length > old.length ? `${stale.length - old.length} changed since team init wrote them` : ''];
  const detail = problems.filter(Boolean).join('; ');
  if (missing === 0 && old.length === 0) return { name, status: 'warn', detail, fix: `${init} --force writes teamline's text again` };
  return { name, status: 'fail', detail, fix: `${init} brings them up to date` };
}

function textOf(reading: FileReading): string {
  return reading.ok ? reading.text : '';
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

// `team init [--claude] [--opencode] [--gemini] [--codex] [--global] [--bin PATH] [--print] [--force] [--git-drivers]`:
// writes the slash commands (/team, /ralph, /cancel, /team-status) in each agent CLI's own format and
// place, with the rules that let Codex and Gemini run `team`, and with --git-drivers registers the
// opchain checkpoint's merge driver in the clone. It warns when a CLI will not find `team`; --bin
// writes an absolute path instead. It records what it wrote (sha256 per file) and never overwrites a
// file changed since, unless --force.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { UsageError } from '../sys/errors.js';
import { isOnPath } from '../attempt/prepare/agents.js';
import { optionalString, parseFlags } from './args/args.js';
import { INIT_FLAGS } from './args/init-flags.js';
import { binFrom, pathWarnings } from './init/bin.js';
import { MANIFEST, readInitFile, readInitManifest, type InitManifest } from './init/current.js';
import { resolveWritable, writeFileInside, type WriteRoot } from '../sys/safe-write.js';
import { CLIS, filesFor, type Cli, type InitFile } from './init/files.js';
import { setupNotes } from './init/notes.js';
import { initGitDrivers } from './init/git-drivers.js';
import { keepTeamOutOfGit } from '../git/team-exclude.js';

// Where init records what it wrote (kept here for the callers that import it from init).
export { MANIFEST };

type Action = 'create' | 'update' | 'unchanged' | 'keep' | 'overwrite';

// Writes (or with --print shows) the command files; returns 0, or 2 when no CLI is named or found.
export async function initCommand(argv: string[]): Promise<number> {
  const cmd = 'team init';
  const args = parseFlags(argv, INIT_FLAGS, cmd);
  if (args.positionals.length) throw new UsageError(`${cmd}: unexpected argument "${args.positionals[0]}"`);
  const global = args.values.global === true;
  if (global && args.values.cwd !== undefined) throw new UsageError(`${cmd}: --cwd and --global exclude each other`);
  const root = global ? homedir() : resolve(optionalString(args, 'cwd') ?? process.cwd());
  if (!existsSync(root)) throw new UsageError(`--cwd: ${root} is not a folder`);
  const bin = optionalString(args, 'bin');
  const team = bin === undefined ? 'team' : binFrom(bin);
  const gitDrivers = args.values['git-drivers'] === true;
  if (gitDrivers && global) throw new UsageError(`${cmd}: --git-drivers and --global exclude each other (merge drivers live in each clone's .git/config)`);
  // --git-drivers alone sets up the merge driver only; with CLIs named, both.
  if (gitDrivers && !CLIS.some((cli) => args.values[cli] === true)) return initGitDrivers(root, args.values.print === true);
  let clis: Cli[] = CLIS.filter((cli) => args.values[cli] === true);
  if (clis.length === 0) {
    clis = CLIS.filter((cli) => isOnPath(cli, process.env));
    if (clis.length === 0) throw new UsageError(`${cmd}: none of ${CLIS.join(', ')} is on PATH; name the CLIs to set up: ${CLIS.map((cli) => `--${cli}`).join(', ')}`);
  }
  // An absolute path needs no PATH.
  if (bin === undefined) for (const warning of await pathWarnings(clis, process.env)) process.stderr.write(`${warning}\n`);
  const files = clis.flatMap((cli) => filesFor(cli, root, global, team));
  const manifest = readInitManifest(root);
  const print = args.values.print === true;
  // Every file is written inside the root, never through a link out of it: checked for all first.
  const inside: WriteRoot = { dir: root, name: global ? 'your home folder' : 'the project' };
  for (const file of [...files, { path: join(root, MANIFEST) }]) resolveWritable(inside, file.path);
  for (const file of files) {
    const action = decide(file, root, manifest.files, args.values.force === true);
    const shown = relative(root, file.path);
    if (print) {
      process.stdout.write(`── ${global ? '~/' : ''}${shown} (${file.cli}): would be ${describe(action)}\n${file.text}\n`);
      continue;
    }
    if (action === 'create' || action === 'update' || action === 'overwrite') writeFileInside(inside, file.path, file.text);
    if (action !== 'keep') manifest.files[shown] = sha256(file.text);
    process.stdout.write(`${describe(action).padEnd(9)} ${global ? '~/' : ''}${shown}${action === 'keep' ? ' (changed since team init wrote it, or not written by it; --force overwrites it)' : ''}\n`);
  }
  for (const note of setupNotes(clis, root, global, team)) process.stdout.write(`${note}\n`);
  if (!print) writeManifest(inside, { ...manifest, bins: { ...manifest.bins, ...Object.fromEntries(clis.map((cli) => [cli, team])) } });
  return gitDrivers ? initGitDrivers(root, print) : 0;
}

// What to do with a file; one that is there but cannot be read as a regular file (a FIFO, a folder)
// was not written by init.
function decide(file: InitFile, root: string, manifest: Record<string, string>, force: boolean): Action {
  const reading = readInitFile(root, file.path);
  if (!reading.ok && reading.missing) return 'create';
  if (!reading.ok) return force ? 'overwrite' : 'keep';
  const current = reading.text;
  if (current === file.text) return 'unchanged';
  if (manifest[relative(root, file.path)] === sha256(current)) return 'update';
  return force ? 'overwrite' : 'keep';
}

function describe(action: Action): string {
  return { create: 'created', update: 'updated', unchanged: 'unchanged', keep: 'kept', overwrite: 'overwrote' }[action];
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function writeManifest(root: WriteRoot, manifest: InitManifest): void {
  keepTeamOutOfGit(root.dir);
  writeFileInside(root, join(root.dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
}

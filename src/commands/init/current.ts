// What `team init` recorded (the hash of each file it wrote, and how each CLI's files name `team`),
// and what it would write now for the same CLIs: the files rendered, not written, that `team
// doctor` compares with the ones in place.
import { join, relative } from 'node:path';
import { readRegularFile, type FileReading } from '../../sys/regular-file.js';
import { CLIS, filesFor, type Cli, type InitFile } from './files.js';

// What init wrote, relative to the root (the project, or the home folder with --global).
export const MANIFEST = join('.team', 'init-manifest.json');

// The manifest's shape (`bins` is absent from manifests written before --bin).
export interface InitManifest {
  /** sha256 of each file as init last wrote it, by its path relative to the root. */
  files: Record<string, string>;
  /** The word or absolute path each CLI's files call teamline by (absent: `team`). */
  bins: Partial<Record<Cli, string>>;
}

// A command file, the manifest or `.gitattributes` is far smaller; a bigger file is not one init wrote.
const MAX_INIT_FILE_BYTES = 1024 * 1024;

// A file init reads under `root` (the project, or the home folder with --global): a regular file,
// through no link out of `root`, read without blocking.
export function readInitFile(root: string, path: string): FileReading {
  return readRegularFile(path, MAX_INIT_FILE_BYTES, { within: root });
}

// The manifest under `root`; empty when there is none (or it cannot be read).
export function readInitManifest(root: string): InitManifest {
  const reading = readInitFile(root, join(root, MANIFEST));
  if (!reading.ok) return { files: {}, bins: {} };
  try {
    const parsed = JSON.parse(reading.text) as Partial<InitManifest>;
    return { files: parsed.files ?? {}, bins: parsed.bins ?? {} };
  } catch {
    return { files: {}, bins: {} };
  }
}

// The files init would write now for every CLI it set up under `root`, with the bin it used.
export function expectedInitFiles(root: string, global: boolean): InitFile[] {
  const { files, bins } = readInitManifest(root);
  // A manifest written before `bins` names its CLIs by their files only.
  const setUp = (cli: Cli) => bins[cli] !== undefined || filesFor(cli, root, global).some((file) => relative(root, file.path) in files);
  return CLIS.filter(setUp).flatMap((cli) => filesFor(cli, root, global, bins[cli]));
}

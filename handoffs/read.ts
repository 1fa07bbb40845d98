// Reads a run's handoffs back, in the order they were written.
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

export { checkHandoffShape } from './shape.js';

export interface HandoffFile {
  index: number;
  stage: string;
  file: string;
  text: string;
}

// A handoff's file name: `NN-<stage>.md`; anything else in the folder is not a handoff.
const HANDOFF_NAME = /^(\d{2,})-([a-z][a-z-]*)\.md$/;

// Every handoff of the folder, sorted by index; other files and a missing folder yield nothing.
export function readHandoffs(handoffsDir: string): HandoffFile[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(handoffsDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const found: HandoffFile[] = [];
  for (const entry of entries) {
    const match = HANDOFF_NAME.exec(entry.name);
    if (!match || !entry.isFile()) continue;
    const file = join(handoffsDir, entry.name);
    found.push({ index: Number(match[1]), stage: match[2]!, file, text: readFileSync(file, 'utf8') });
  }
  return found.sort((a, b) => a.index - b.index || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

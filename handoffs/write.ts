// Writes a stage handoff into the run's handoffs folder, atomically.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { HandoffInput } from '../machines/types.js';
import { writeFileAtomic } from '../src/sys/atomic.js';
import { renderHandoff } from './render.js';

// Stage names in file names: lowercase words joined by dashes (team-plan, ralph-review, team-cancel).
const STAGE_NAME = /^[a-z][a-z-]*$/;

// `NN-<stage>.md`, the index at least two digits so that names sort in the order written.
export function handoffFileName(index: number, stage: string): string {
  if (!Number.isInteger(index) || index < 1) throw new Error(`handoff index must be a positive integer, got ${index}`);
  if (!STAGE_NAME.test(stage)) throw new Error(`handoff stage must be a stage name, got ${JSON.stringify(stage)}`);
  return `${String(index).padStart(2, '0')}-${stage}.md`;
}

// Renders and writes the handoff; a rewrite after a crash replaces the file with the same bytes.
export function writeHandoff(handoffsDir: string, input: HandoffInput, options: { fsync: boolean }): { file: string; text: string; sha256: string } {
  const text = renderHandoff(input);
  mkdirSync(handoffsDir, { recursive: true });
  const file = writeFileAtomic(handoffsDir, handoffFileName(input.index, input.stage), text, { fsync: options.fsync });
  return { file, text, sha256: createHash('sha256').update(text, 'utf8').digest('hex') };
}

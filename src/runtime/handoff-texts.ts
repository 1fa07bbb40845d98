// The handoff texts a prompt includes: each handoff file is written once, so it is read once per orchestrator.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const texts = new Map<string, string>();

// The texts of the named handoffs, in the order given; a handoff missing from the folder is left out.
export function readHandoffTexts(handoffsDir: string, paths: string[]): string[] {
  const found: string[] = [];
  for (const path of paths) {
    const file = join(handoffsDir, basename(path));
    let text = texts.get(file);
    if (text === undefined) {
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      texts.set(file, text);
    }
    found.push(text);
  }
  return found;
}

// The handoff texts a prompt includes: each handoff file is written once, so it is read once per
// orchestrator. A run's log holds them too (handoff_written.text): an orchestrator on another machine
// than the one that wrote a handoff (PostgreSQL store) takes it from there.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { RunSession } from './session.js';

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

// The texts of the named handoffs (paths as handoff_written records them), from the log, else the files.
export function handoffTextsOf(session: RunSession, paths: string[]): string[] {
  return paths.flatMap((path) => {
    const text = session.events.fold.handoffText(path) ?? readHandoffTexts(session.paths.handoffsDir, [path])[0];
    return text === undefined ? [] : [text];
  });
}

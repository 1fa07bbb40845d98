// The handoff texts a prompt includes: the log holds them (handoff_written.text, in the fold), so an
// orchestrator on another machine than the one that wrote a handoff (PostgreSQL store) has them too;
// an older log holds none, and its handoff files are read.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { RunPaths } from '../../log/write.js';
import type { EventLog } from '../../session/event-log.js';

// The texts of the named handoffs (paths as handoff_written records them), in the order given; one
// neither the log nor the folder holds is left out.
export function handoffTextsOf(run: { readonly events: EventLog; readonly paths: RunPaths }, paths: string[]): string[] {
  return paths.flatMap((path) => {
    const text = run.events.fold.handoffText(path) ?? readText(join(run.paths.handoffsDir, basename(path)));
    return text === undefined ? [] : [text];
  });
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

// The handoff texts a prompt includes: the log holds them (handoff_written.text, in the fold), so an
// orchestrator on another machine than the one that wrote a handoff (PostgreSQL store) has them too;
// an older log holds none, and its handoff files are read.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { RunPaths } from '../../log/write.js';
import type { EventLog } from '../../session/event-log.js';
import type { HandoffRecord } from '../../../machines/types.js';

type HandoffParts = { readonly events: EventLog; readonly paths: RunPaths };

// The handoffs a prompt carries whole: the latest of each stage, in the order written. An earlier
// one of a stage (the exec, verify and fix of an earlier fix loop, an earlier iteration's plan) is
// superseded by its stage's later one: it is named by its path for the history, so that the third
// fix loop's prompt is as long as the first's, not a page longer for each loop (issue 40).
export function promptHandoffTexts(run: HandoffParts, handoffs: HandoffRecord[]): string[] {
  const latest = new Map(handoffs.map((h) => [h.stage, h.path]));
  const whole = handoffs.filter((h) => latest.get(h.stage) === h.path);
  const earlier = handoffs.filter((h) => latest.get(h.stage) !== h.path);
  const texts = handoffTextsOf(run, whole.map((h) => h.path));
  if (earlier.length === 0) return texts;
  return [...texts, ['Earlier handoffs, each superseded by its stage\'s later one above (read one only if you need the history):', ...earlier.map((h) => `- ${h.path} (${h.stage})`)].join('\n')];
}

// The texts of the named handoffs (paths as handoff_written records them), in the order given; one
// neither the log nor the folder holds is left out.
export function handoffTextsOf(run: HandoffParts, paths: string[]): string[] {
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

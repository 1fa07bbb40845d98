// The runtime's one call into the checkpoint: at every stage change and at the run's end.
import type { RunPaths, WriteOptions } from '../log/write.js';
import type { Logger } from '../sys/logger.js';
import type { Progress } from '../session/progress.js';
import type { RunView } from '../log/fold/fold.js';
import { CHECKPOINT_FILE, writeTeamCheckpoint } from './write.js';

// The runs whose unwritten checkpoint this process has told of.
const told = new Set<string>();

// The records after which `.checkpoints/team.checkpoint.json` is rewritten.
const TRIGGERS = new Set(['stage_entered', 'stage_skipped', 'fix_loop_started', 'iteration_started', 'run_completed', 'run_failed', 'run_cancelled', 'run_stopped']);

// Whether the record is one after which the checkpoint is rewritten.
export function triggersCheckpoint(event: string): boolean {
  return TRIGGERS.has(event);
}

// Rewrites the checkpoint after a stage change or the end, from the run as `source` gives it (the
// orchestrator's own fold); another skill's file moved out of the way is said; a failure is
// logged, never stops the run.
export function updateCheckpointAfter(event: string, target: { paths: RunPaths; write: WriteOptions; log: Logger; progress: Progress; source: () => RunView }): void {
  if (!TRIGGERS.has(event)) return;
  try {
    const moved = writeTeamCheckpoint(target.paths, target.write, new Date(), target.source())?.moved;
    if (moved) {
      const whose = moved.skill === '' ? 'not a checkpoint of skill team' : `skill ${JSON.stringify(moved.skill)}'s checkpoint`;
      target.progress.emit({ type: 'checkpoint.moved', skill: moved.skill, to: moved.to }, `.checkpoints/${CHECKPOINT_FILE} was ${whose}: moved as it was to ${moved.to}; teamline writes its own there`);
    }
  } catch (error) {
    target.log.warn({ err: error }, 'opchain checkpoint not written');
    // Said where the user looks, once a run: the end summary and `team status` say it again.
    if (!told.has(target.paths.runDir)) {
      told.add(target.paths.runDir);
      const reason = error instanceof Error ? error.message : String(error);
      target.progress.emit({ type: 'checkpoint.unwritten', reason }, `! .checkpoints/${CHECKPOINT_FILE} not written: ${reason}`);
    }
  }
}

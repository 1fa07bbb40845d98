// Whether the project's checkpoint record holds a run: what the end summary may claim, and what
// `team status` lists when the file there cannot be written (a link out of the project, a FIFO, a folder).
import { join } from 'node:path';
import { readRegularFile } from '../sys/regular-file.js';
import { checkpointsDir, CHECKPOINT_FILE } from './write.js';

// A checkpoint is small; the bound only keeps a huge file from being read.
const MAX_BYTES = 4 * 1024 * 1024;

export type CheckpointRecord = { state: 'written' } | { state: 'absent' } | { state: 'other-run' } | { state: 'unwritable'; reason: string };

// What `.checkpoints/team.checkpoint.json` is for the run `runId` of the project.
export function checkpointRecordOf(projectDir: string, runId: string): CheckpointRecord {
  const reading = readRegularFile(checkpointFileOf(projectDir), MAX_BYTES, { within: projectDir });
  if (!reading.ok) return reading.missing ? { state: 'absent' } : { state: 'unwritable', reason: reading.reason };
  try {
    const doc = JSON.parse(reading.text) as { skill_state?: { run_id?: unknown } };
    return doc.skill_state?.run_id === runId ? { state: 'written' } : { state: 'other-run' };
  } catch {
    return { state: 'other-run' };
  }
}

// The checkpoint file's path in the project.
export function checkpointFileOf(projectDir: string): string {
  return join(checkpointsDir(projectDir), CHECKPOINT_FILE);
}

// "needs attention" words for a record that could not be written there (read now, or as read by
// the caller); undefined otherwise.
export function unwrittenCheckpointLine(projectDir: string, runId: string, record = checkpointRecordOf(projectDir, runId)): string | undefined {
  return record.state === 'unwritable' ? `.checkpoints/${CHECKPOINT_FILE} is ${record.reason}: the run's checkpoint record was not written there (teamline writes a regular file inside the project only)` : undefined;
}

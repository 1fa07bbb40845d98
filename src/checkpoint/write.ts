// Keeps `.checkpoints/team.checkpoint.json` current: read → merge → write, atomically (OPCHAIN.md).
import { existsSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { readRegularFile } from '../sys/regular-file.js';
import { moveFileInside, writeFileInside, type WriteRoot } from '../sys/safe-write.js';
import type { RunPaths, WriteOptions } from '../log/write.js';
import type { RunView } from '../log/fold/fold.js';
import { makeCheckpointFields } from './fields.js';
import { isObject } from './validate.js';

// teamline's skill name, and so its file: `.checkpoints/team.checkpoint.json`.
export const SKILL = 'team';
export const CHECKPOINT_FILE = `${SKILL}.checkpoint.json`;

// The folder of every skill's checkpoint in a project.
export function checkpointsDir(projectDir: string): string {
  return join(projectDir, '.checkpoints');
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

// What a write did: the file, and the file of another skill moved out of its way (relative to the project).
export interface CheckpointWrite {
  file: string;
  moved?: { skill: string; to: string };
}

// Writes the checkpoint of the run at `paths` from its view (the fold); undefined when a newer run
// owns it. A file there of another skill (or not a checkpoint at all) is moved to
// history as it is, byte for byte, and teamline writes its own.
export function writeTeamCheckpoint(paths: RunPaths, options: WriteOptions, now: Date, view: RunView): CheckpointWrite | undefined {
  const owned = makeCheckpointFields(view, paths);
  const root: WriteRoot = { dir: paths.projectDir, name: 'the project' };
  const dir = checkpointsDir(paths.projectDir);
  const file = join(dir, CHECKPOINT_FILE);
  const old = readExisting(paths.projectDir, file);
  let base: Record<string, unknown> = {};
  let moved: CheckpointWrite['moved'];
  if (old?.doc === undefined || old.doc.skill !== SKILL) {
    if (old) moved = { skill: old.skill, to: relative(paths.projectDir, rotate(root, file, old.doc, now)) };
  } else {
    const oldRun = isObject(old.doc.skill_state) && typeof old.doc.skill_state.run_id === 'string' ? old.doc.skill_state.run_id : undefined;
    // Run ids sort by their start time: an older run never overwrites a newer run's checkpoint.
    if (oldRun !== undefined && oldRun > view.run.run_id) return undefined;
    base = old.doc;
    if (oldRun !== undefined && oldRun !== view.run.run_id) {
      rotate(root, file, old.doc, now);
      base = carryOver(old.doc, owned);
    }
  }
  const merged = merge(base, owned, paths.projectDir, now);
  writeFileInside(root, file, `${JSON.stringify(merged, null, 2)}\n`, { fsync: options.fsync });
  return { file, ...(moved && { moved }) };
}

// A checkpoint is far smaller (OPCHAIN.md warns above 32 KB); a bigger file is moved aside unread.
const MAX_CHECKPOINT_BYTES = 4 * 1024 * 1024;

// The file there: its document when it is a JSON object, and whose skill it names ('' when none,
// or when it is no checkpoint: not JSON, a FIFO, a folder, a link out of the project, too big).
function readExisting(projectDir: string, file: string): { doc?: Record<string, unknown>; skill: string } | undefined {
  const reading = readRegularFile(file, MAX_CHECKPOINT_BYTES, { within: projectDir });
  if (!reading.ok && reading.missing) return undefined;
  let doc: unknown;
  try {
    doc = reading.ok ? JSON.parse(reading.text) : undefined;
  } catch {
    doc = undefined;
  }
  if (!isObject(doc)) return { skill: '' };
  return { doc, skill: typeof doc.skill === 'string' ? doc.skill : '' };
}

// Our fields over the old file's, in the order OPCHAIN.md lists them; fields we do not own are kept.
function merge(base: Record<string, unknown>, owned: Record<string, unknown>, projectDir: string, now: Date): Record<string, unknown> {
  const created = typeof base.created_at === 'string' && ISO_UTC.test(base.created_at) ? base.created_at : now.toISOString();
  const updated = Date.parse(created) > now.getTime() ? created : now.toISOString();
  const primer = isObject(base.context_primer) ? base.context_primer : {};
  const { protocol_version, skill, ...rest } = owned;
  return {
    protocol_version,
    skill,
    project: typeof base.project === 'string' && base.project !== '' ? base.project : basename(projectDir),
    project_dir: projectDir,
    created_at: created,
    updated_at: updated,
    ...withoutKeys(base, ['protocol_version', 'skill', 'project', 'project_dir', 'created_at', 'updated_at']),
    ...rest,
    context_primer: { user_preferences: [], ...primer, ...(owned.context_primer as object) },
    // The user's notes in skill_state stay; teamline's own keys are its own.
    skill_state: { ...(isObject(base.skill_state) ? base.skill_state : {}), ...(owned.skill_state as object) },
  };
}

// What a new run's checkpoint keeps of the last run's file: the fields other tools wrote.
const OWNED = ['phase', 'step', 'status', 'progress_summary', 'progress_table', 'next_actions', 'blockers', 'cost', 'recently_done', 'skill_state', 'created_at', 'updated_at'];

// With the fields of the user: context_primer's and skill_state's keys that teamline does not write.
function carryOver(doc: Record<string, unknown>, owned: Record<string, unknown>): Record<string, unknown> {
  const kept = withoutKeys(doc, OWNED);
  if (isObject(doc.context_primer)) kept.context_primer = withoutKeys(doc.context_primer, Object.keys(owned.context_primer as object));
  if (isObject(doc.skill_state)) kept.skill_state = withoutKeys(doc.skill_state, Object.keys(owned.skill_state as object));
  return kept;
}

// The old file moves, as it is, to `.checkpoints/history/<its skill, else team>.<its updated_at,
// : and . as ->.checkpoint.json` (when that name is taken: the time of the move).
function rotate(root: WriteRoot, file: string, doc: Record<string, unknown> | undefined, now: Date): string {
  const skill = doc && typeof doc.skill === 'string' && /^[\w.-]{1,64}$/.test(doc.skill) ? doc.skill : SKILL;
  const at = doc && typeof doc.updated_at === 'string' && ISO_UTC.test(doc.updated_at) ? doc.updated_at : now.toISOString();
  const history = join(checkpointsDir(root.dir), 'history');
  const name = (time: string) => join(history, `${skill}.${time.replace(/[:.]/g, '-')}.checkpoint.json`);
  return moveFileInside(root, file, existsSync(name(at)) ? name(now.toISOString()) : name(at));
}

function withoutKeys(doc: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).filter(([k]) => !keys.includes(k)));
}

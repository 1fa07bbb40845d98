// Keeps `.checkpoints/team.checkpoint.json` current: read → merge → write, atomically (OPCHAIN.md).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { writeFileAtomic } from '../sys/atomic.js';
import type { RunPaths, WriteOptions } from '../log/write.js';
import type { RunView } from '../log/fold.js';
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

// Writes the checkpoint of the run at `paths` from its view (the fold); returns the file, or undefined
// when a newer run owns it.
export function writeTeamCheckpoint(paths: RunPaths, options: WriteOptions, now: Date, view: RunView): string | undefined {
  const owned = makeCheckpointFields(view, paths);
  const dir = checkpointsDir(paths.projectDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, CHECKPOINT_FILE);
  const old = readExisting(file);
  let base: Record<string, unknown> = old?.doc ?? {};
  const oldRun = isObject(base.skill_state) && typeof base.skill_state.run_id === 'string' ? base.skill_state.run_id : undefined;
  // Run ids sort by their start time: an older run never overwrites a newer run's checkpoint.
  if (oldRun !== undefined && oldRun > view.run.run_id) return undefined;
  if (old && (old.doc === undefined || (oldRun !== undefined && oldRun !== view.run.run_id))) {
    rotate(dir, old.text, old.doc, options, now);
    base = carryOver(old.doc ?? {});
  }
  const merged = merge(base, owned, paths.projectDir, now);
  writeFileAtomic(dir, CHECKPOINT_FILE, `${JSON.stringify(merged, null, 2)}\n`, options);
  return file;
}

function readExisting(file: string): { text: string; doc?: Record<string, unknown> } | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  try {
    const doc: unknown = JSON.parse(text);
    return { text, doc: isObject(doc) ? doc : undefined };
  } catch {
    return { text };
  }
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
  };
}

// What a new run's checkpoint keeps of the last run's file: the fields other tools wrote.
const OWNED = ['phase', 'step', 'status', 'progress_summary', 'progress_table', 'next_actions', 'blockers', 'cost', 'recently_done', 'skill_state', 'created_at', 'updated_at'];

function carryOver(doc: Record<string, unknown>): Record<string, unknown> {
  const kept = withoutKeys(doc, OWNED);
  if (isObject(doc.context_primer)) kept.context_primer = { user_preferences: doc.context_primer.user_preferences ?? [] };
  return kept;
}

// The old file goes to `.checkpoints/history/team.<its updated_at, : and . as ->.checkpoint.json`.
function rotate(dir: string, text: string, doc: Record<string, unknown> | undefined, options: WriteOptions, now: Date): void {
  const history = join(dir, 'history');
  mkdirSync(history, { recursive: true });
  const at = doc && typeof doc.updated_at === 'string' && ISO_UTC.test(doc.updated_at) ? doc.updated_at : now.toISOString();
  writeFileAtomic(history, `${SKILL}.${at.replace(/[:.]/g, '-')}.checkpoint.json`, text, options);
}

function withoutKeys(doc: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).filter(([k]) => !keys.includes(k)));
}

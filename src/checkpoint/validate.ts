// The opchain validator: a checkpoint file's errors (fail) and warnings (pass unless strict), per OPCHAIN.md.
import { existsSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';

export interface Verdict {
  errors: string[];
  warnings: string[];
}

const REQUIRED = ['protocol_version', 'skill', 'project', 'project_dir', 'created_at', 'updated_at', 'phase', 'step', 'status', 'progress_summary'];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;
const STATUSES = ['in_progress', 'blocked', 'complete', 'failed'];
const ROW_STATUSES = ['complete', 'in_progress', 'not_started', 'blocked', 'failed'];
const NEEDS = ['user_decision', 'code_fix', 'external_dep'];
// Thresholds of OPCHAIN.md: summary length, file size, how far ahead a clock may be, decisions kept.
const SUMMARY_MAX = 1200;
const FILE_MAX = 32 * 1024;
const FUTURE_MS = 24 * 3600 * 1000;
const DECISIONS_MAX = 20;

// Validates the text of `.checkpoints/<skill>.checkpoint.json`; `file` names the skill it must hold.
export function validateCheckpointText(text: string, file?: string, now = Date.now()): Verdict {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    return { errors: [`invalid JSON: ${(error as Error).message}`], warnings: [] };
  }
  const verdict = validateCheckpoint(doc, file, now);
  if (Buffer.byteLength(text) > FILE_MAX) verdict.warnings.push(`file is ${Buffer.byteLength(text)} bytes, above 32 KB`);
  return verdict;
}

// Validates a parsed checkpoint.
export function validateCheckpoint(doc: unknown, file?: string, now = Date.now()): Verdict {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (!isObject(doc)) return { errors: ['the checkpoint is not a JSON object'], warnings };
  for (const field of REQUIRED) {
    if (doc[field] === undefined || doc[field] === null || doc[field] === '') errors.push(`${field}: required`);
  }
  const str = (field: string) => doc[field] === undefined || doc[field] === null || doc[field] === '' || typeof doc[field] === 'string' || !errors.push(`${field}: must be a string`);
  for (const field of REQUIRED) str(field);
  if (typeof doc.protocol_version === 'string' && !['1.0', '1.1'].includes(doc.protocol_version)) errors.push(`protocol_version: "${doc.protocol_version}" is not 1.0 or 1.1`);
  const skillOfFile = file ? /^(.+)\.checkpoint\.json$/.exec(basename(file))?.[1] : undefined;
  if (skillOfFile && typeof doc.skill === 'string' && doc.skill !== skillOfFile) errors.push(`skill: "${doc.skill}" differs from the file's "${skillOfFile}"`);
  if (typeof doc.project_dir === 'string' && doc.project_dir && !isAbsolute(doc.project_dir)) errors.push('project_dir: must be an absolute path');
  checkTimes(doc, errors, warnings, now);
  if (typeof doc.status === 'string' && doc.status && !STATUSES.includes(doc.status)) errors.push(`status: "${doc.status}" is not one of ${STATUSES.join(', ')}`);
  if (typeof doc.progress_summary === 'string' && doc.progress_summary.length > SUMMARY_MAX) warnings.push(`progress_summary: ${doc.progress_summary.length} characters, above ${SUMMARY_MAX}`);
  const inProgress = doc.status === 'in_progress';
  const rowIds = checkTable(doc.progress_table, inProgress, errors, warnings);
  checkPrimer(doc, inProgress, errors, warnings);
  checkNextActions(doc.next_actions, inProgress, errors);
  checkBlockers(doc.blockers, rowIds, errors, warnings);
  checkCost(doc.cost, errors, warnings);
  checkEvalScores(doc.eval_scores, errors);
  checkTelemetry(doc.telemetry_handle, errors);
  checkRecentlyDone(doc.recently_done, errors);
  return { errors, warnings };
}

function checkTimes(doc: Record<string, unknown>, errors: string[], warnings: string[], now: number): void {
  for (const field of ['created_at', 'updated_at']) {
    if (typeof doc[field] === 'string' && doc[field] && !ISO_UTC.test(doc[field])) errors.push(`${field}: "${doc[field]}" is not ISO-8601 UTC`);
  }
  const created = typeof doc.created_at === 'string' && ISO_UTC.test(doc.created_at) ? Date.parse(doc.created_at) : NaN;
  const updated = typeof doc.updated_at === 'string' && ISO_UTC.test(doc.updated_at) ? Date.parse(doc.updated_at) : NaN;
  if (updated < created) errors.push('updated_at: earlier than created_at');
  if (updated - now > FUTURE_MS) warnings.push('updated_at: more than 24 h in the future');
}

function checkTable(table: unknown, inProgress: boolean, errors: string[], warnings: string[]): Set<string> {
  const ids = new Set<string>();
  if (table === undefined) {
    if (inProgress) warnings.push('progress_table: absent while in_progress');
    return ids;
  }
  if (!Array.isArray(table)) return errors.push('progress_table: must be an array'), ids;
  table.forEach((row, i) => {
    if (!isObject(row)) return errors.push(`progress_table[${i}]: must be an object`);
    for (const field of ['id', 'label', 'status']) if (typeof row[field] !== 'string' || row[field] === '') errors.push(`progress_table[${i}].${field}: required`);
    if (typeof row.status === 'string' && row.status && !ROW_STATUSES.includes(row.status)) errors.push(`progress_table[${i}].status: "${row.status}" is not one of ${ROW_STATUSES.join(', ')}`);
    if (typeof row.id === 'string') ids.add(row.id);
    return 0;
  });
  return ids;
}

function checkPrimer(doc: Record<string, unknown>, inProgress: boolean, errors: string[], warnings: string[]): void {
  const primer = doc.context_primer;
  if (primer === undefined) {
    if (inProgress) warnings.push('context_primer: absent while in_progress');
    return;
  }
  if (!isObject(primer)) return void errors.push('context_primer: must be an object');
  for (const field of ['key_decisions', 'generated_files', 'user_preferences']) {
    if (primer[field] !== undefined && !Array.isArray(primer[field])) errors.push(`context_primer.${field}: must be an array`);
  }
  if (Array.isArray(primer.key_decisions) && primer.key_decisions.length > DECISIONS_MAX) warnings.push(`context_primer.key_decisions: ${primer.key_decisions.length} items; consolidate past ~${DECISIONS_MAX}`);
  if (Array.isArray(primer.generated_files) && typeof doc.project_dir === 'string' && isAbsolute(doc.project_dir)) {
    for (const path of primer.generated_files) {
      if (typeof path !== 'string') errors.push('context_primer.generated_files: entries must be strings');
      else if (!existsSync(isAbsolute(path) ? path : join(doc.project_dir, path))) warnings.push(`context_primer.generated_files: ${path} does not exist`);
    }
  }
}

function checkNextActions(actions: unknown, inProgress: boolean, errors: string[]): void {
  if (actions === undefined || (Array.isArray(actions) && actions.length === 0)) {
    if (inProgress) errors.push('next_actions: missing or empty while in_progress');
    return;
  }
  if (!Array.isArray(actions)) return void errors.push('next_actions: must be an array');
  actions.forEach((action, i) => {
    if (typeof action === 'string') return;
    if (!isObject(action) || typeof action.text !== 'string' || action.text === '') return void errors.push(`next_actions[${i}]: a string or {text, done_when?}`);
    if (action.done_when !== undefined && typeof action.done_when !== 'string') errors.push(`next_actions[${i}].done_when: must be a shell command string`);
  });
}

function checkBlockers(blockers: unknown, rowIds: Set<string>, errors: string[], warnings: string[]): void {
  if (blockers === undefined) return;
  if (!Array.isArray(blockers)) return void errors.push('blockers: must be an array');
  blockers.forEach((b, i) => {
    if (!isObject(b)) return void errors.push(`blockers[${i}]: must be an object`);
    for (const field of ['id', 'description']) if (typeof b[field] !== 'string' || b[field] === '') errors.push(`blockers[${i}].${field}: required`);
    if (b.needs !== undefined && !NEEDS.includes(b.needs as string)) errors.push(`blockers[${i}].needs: "${String(b.needs)}" is not one of ${NEEDS.join(', ')}`);
    if (b.blocking !== undefined && !rowIds.has(String(b.blocking))) warnings.push(`blockers[${i}].blocking: "${String(b.blocking)}" names no progress_table id`);
  });
}

function checkCost(cost: unknown, errors: string[], warnings: string[]): void {
  if (cost === undefined) return;
  if (!isObject(cost)) return void errors.push('cost: must be an object');
  const amount = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
  for (const field of ['total_usd', 'budget_usd']) if (cost[field] !== undefined && !amount(cost[field])) errors.push(`cost.${field}: must be a non-negative finite number`);
  for (const field of ['by_phase', 'by_model']) {
    if (cost[field] === undefined) continue;
    if (!isObject(cost[field])) errors.push(`cost.${field}: must map names to numbers`);
    else for (const [name, value] of Object.entries(cost[field])) if (!amount(value)) errors.push(`cost.${field}.${name}: must be a non-negative finite number`);
  }
  if (amount(cost.total_usd) && amount(cost.budget_usd) && (cost.budget_usd as number) > 0 && (cost.total_usd as number) > (cost.budget_usd as number)) warnings.push('cost: total_usd above budget_usd');
}

function checkEvalScores(scores: unknown, errors: string[]): void {
  if (scores === undefined) return;
  if (!Array.isArray(scores)) return void errors.push('eval_scores: must be an array');
  scores.forEach((s, i) => {
    if (!isObject(s) || typeof s.rubric !== 'string' || typeof s.score !== 'number') return void errors.push(`eval_scores[${i}]: {rubric, score} required`);
    if (typeof s.max === 'number' && s.score > s.max) errors.push(`eval_scores[${i}]: score ${s.score} above max ${s.max}`);
  });
}

function checkTelemetry(handle: unknown, errors: string[]): void {
  if (handle === undefined || (typeof handle === 'string' && handle !== '') || isObject(handle)) return;
  errors.push('telemetry_handle: a non-empty string or an object');
}

function checkRecentlyDone(done: unknown, errors: string[]): void {
  if (done === undefined) return;
  if (!Array.isArray(done)) return void errors.push('recently_done: must be an array');
  if (done.length > 10) errors.push(`recently_done: ${done.length} items, at most 10`);
  done.forEach((d, i) => {
    if (!isObject(d) || typeof d.at !== 'string' || typeof d.action !== 'string') errors.push(`recently_done[${i}]: {at, action} required`);
  });
  const times = done.map((d) => (isObject(d) && typeof d.at === 'string' ? Date.parse(d.at) : NaN));
  if (times.some((t, i) => i > 0 && t > times[i - 1]!)) errors.push('recently_done: not newest first');
}

// A plain JSON object (not an array, not null).
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

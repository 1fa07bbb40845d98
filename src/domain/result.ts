// Reads and validates an attempt's result: the result file, else the last fenced json block.
import { lstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { builtOnUse } from '../sys/once.js';
import { defectSchema, findingsSchema, taskDefSchema } from '../log/schema.js';
import { LIMITS, redactSecrets, validateProjectPaths } from '../log/guards.js';
import { readRegularFile } from '../sys/regular-file.js';
import { guardAgentText, withNote } from './result-guard.js';
import { lastFencedJson } from '../../workers/adapters/fenced-json.js';
import type { Stage } from '../../workers/types.js';

const baseResult = () => ({
  status: z.enum(['completed', 'failed']),
  summary: z.string(),
  artifacts: z.array(z.string()).default([]),
  evidence: z.string().default(''),
  next: z.string().default(''),
});

// The result schema of each stage (SPEC section 4).
// Each built at its first use: a run reads a few kinds of result.
const RESULT_SCHEMAS = builtOnUse({
  'team-plan': () => z.object({ ...baseResult(), tasks: z.array(taskDefSchema().extend({ title: z.string().default(''), description: z.string().default('') })), needsPrd: z.boolean().default(false), architectural: z.boolean().optional(), needsArchitect: z.boolean().optional() }),
  'team-prd': () => z.object({ ...baseResult(), acceptance: z.record(z.string(), z.array(z.string())) }),
  'team-exec': () => z.object(baseResult()),
  'team-fix': () => z.object(baseResult()),
  'team-verify': () => z.object({ ...baseResult(), verdict: z.enum(['pass', 'fail']), defects: z.array(defectSchema()).default([]) }),
  'ralph-review': () => z.object({ ...baseResult(), verdict: z.enum(['approve', 'reject']), reasons: z.array(z.string()).default([]) }),
  // The explore agent of team-plan (stage routing): what it found, no plan.
  explore: () => z.object({ ...baseResult(), findings: findingsSchema() }),
  // The architect of team-plan: decisions about the boundaries, and risks.
  'plan-architect': () => z.object({ ...baseResult(), notes: z.array(z.string()).default([]), risks: z.array(z.string()).default([]) }),
  // The critic of team-prd: objections to the scope, and criteria it adds.
  critic: () => z.object({ ...baseResult(), objections: z.array(z.string()).default([]), acceptance: z.record(z.string(), z.array(z.string())).default({}) }),
  // The best of N's selector: the candidate it picks (its id, or c<k>), and why.
  select: () => z.object({ ...baseResult(), pick: z.string().min(1).max(200), reasons: z.array(z.string()).default([]) }),
});

// The result an attempt owes: its stage's, or the explore agent's.
export type ResultKind = keyof typeof RESULT_SCHEMAS;
export function resultKindOf(input: { stage: Stage; role: string; candidates?: string[] }): ResultKind {
  if (input.candidates !== undefined) return 'select';
  if (input.stage === 'team-plan' && input.role === 'explore') return 'explore';
  if (input.stage === 'team-plan' && input.role === 'architect') return 'plan-architect';
  return input.stage === 'team-prd' && input.role === 'critic' ? 'critic' : input.stage;
}

export type AgentResult<S extends ResultKind = ResultKind> = z.infer<(typeof RESULT_SCHEMAS)[S]>;

export type ResultReading = { ok: true; result: AgentResult; source: 'file' | 'output' } | { ok: false; reason: string };

// The validated result, or why there is none. A completed status still needs its stage fields.
export function readResult(stage: ResultKind, resultFile: string, finalText: string, projectDir: string): ResultReading {
  return judgeResult(stage, readResultFile(resultFile), finalText, projectDir);
}

// The same judgement of a result file already read (by readResultFile, here or on a worker's machine).
export function judgeResult(stage: ResultKind, file: ResultFileText, finalText: string, projectDir: string): ResultReading {
  if ('refused' in file) return { ok: false, reason: `result file refused: ${file.refused}` };
  let raw: unknown;
  let source: 'file' | 'output' = 'file';
  if (file.text !== undefined) {
    try {
      raw = JSON.parse(file.text);
    } catch (error) {
      // Never the text itself: it may be anything the agent could read.
      const at = /at position (\d+)/.exec((error as Error).message)?.[1];
      return { ok: false, reason: `result file is not valid JSON (${at ? `at position ${at} of ` : ''}${file.text.length} characters; the text is not quoted)` };
    }
  } else {
    raw = lastFencedJson(finalText);
    source = 'output';
    if (raw === undefined) return { ok: false, reason: 'no result: no result file and no fenced json block in the output' };
  }
  const parsed = RESULT_SCHEMAS[stage].safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // The path and message can hold names the agent chose (an unknown key): redacted and bounded like its text.
    const where = redactSecrets(`${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).text;
    return { ok: false, reason: `result (${source}) is invalid: ${where.length > 300 ? `${where.slice(0, 299)}…` : where}` };
  }
  const result = parsed.data as AgentResult;
  const note = guardAgentText(result);
  try {
    result.artifacts = validateProjectPaths(projectDir, result.artifacts, 'result artifacts');
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  result.evidence = withNote(result.evidence || result.summary, note);
  return { ok: true, result, source };
}

// The result file as read: its text, nothing (there is no file), or why it was refused.
export type ResultFileText = { text?: string } | { refused: string };

// The result file's text (none when there is no file), or why it is refused. Only a regular file
// directly in the attempt folder is read: no link, no FIFO, no hard link to a file elsewhere.
export function readResultFile(resultFile: string): ResultFileText {
  if (!isRealFolder(dirname(resultFile))) return { refused: 'the attempt folder is no longer a folder (a symbolic link?)' };
  const file = readRegularFile(resultFile, LIMITS.resultBytes, { singleLink: true });
  if (file.ok) return { text: file.text };
  return file.missing ? {} : { refused: file.reason };
}

function isRealFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

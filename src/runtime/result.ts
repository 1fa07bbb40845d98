// Reads and validates an attempt's result: the result file, else the last fenced json block.
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { defectSchema, taskDefSchema } from '../../machines/events.js';
import { LIMITS, validateProjectPaths } from '../checkpoint/guards.js';
import { lastFencedJson } from '../../workers/adapters/fenced-json.js';
import type { Stage } from '../../workers/types.js';

const baseResult = {
  status: z.enum(['completed', 'failed']),
  summary: z.string(),
  artifacts: z.array(z.string()).default([]),
  evidence: z.string().default(''),
  next: z.string().default(''),
};

// The result schema of each stage (SPEC section 4).
const RESULT_SCHEMAS = {
  'team-plan': z.object({ ...baseResult, tasks: z.array(taskDefSchema.extend({ title: z.string().default(''), description: z.string().default('') })), needsPrd: z.boolean().default(false) }),
  'team-prd': z.object({ ...baseResult, acceptance: z.record(z.string(), z.array(z.string())) }),
  'team-exec': z.object(baseResult),
  'team-fix': z.object(baseResult),
  'team-verify': z.object({ ...baseResult, verdict: z.enum(['pass', 'fail']), defects: z.array(defectSchema).default([]) }),
  'ralph-review': z.object({ ...baseResult, verdict: z.enum(['approve', 'reject']), reasons: z.array(z.string()).default([]) }),
} as const;

export type AgentResult<S extends Stage = Stage> = z.infer<(typeof RESULT_SCHEMAS)[S]>;

export type ResultReading = { ok: true; result: AgentResult; source: 'file' | 'output' } | { ok: false; reason: string };

// The validated result, or why there is none. A completed status still needs its stage fields.
export function readResult(stage: Stage, resultFile: string, finalText: string, projectDir: string): ResultReading {
  let raw: unknown;
  let source: 'file' | 'output' = 'file';
  if (existsSync(resultFile)) {
    const text = readFileSync(resultFile, 'utf8');
    try {
      raw = JSON.parse(text);
    } catch (error) {
      return { ok: false, reason: `result file is not valid JSON (${(error as Error).message})` };
    }
  } else {
    raw = lastFencedJson(finalText);
    source = 'output';
    if (raw === undefined) return { ok: false, reason: 'no result: no result file and no fenced json block in the output' };
  }
  const parsed = RESULT_SCHEMAS[stage].safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, reason: `result (${source}) is invalid: ${issue.path.map(String).join('.') || '(root)'}: ${issue.message}` };
  }
  const result = parsed.data as AgentResult;
  try {
    result.artifacts = validateProjectPaths(projectDir, result.artifacts, 'result artifacts');
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  result.evidence = clip(result.evidence || result.summary);
  result.next = clip(result.next);
  return { ok: true, result, source };
}

function clip(text: string): string {
  return text.length > LIMITS.text ? `${text.slice(0, LIMITS.text - 1)}…` : text;
}

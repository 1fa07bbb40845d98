// Reads the runtime's task-id conventions: `plan`, `prd`, `verify-<p>`, `review-<p>`,
// `fix-<loop>-<defect>`, exec ids from the plan, and `i<k>.` before every id in ralph iteration k >= 2.

export type TaskKind = 'plan' | 'prd' | 'verify' | 'review' | 'fix' | 'exec';

export interface TaskIdParts {
  id: string;
  /** The id without its `i<k>.` prefix. */
  base: string;
  /** 1 for the first (unprefixed) iteration. */
  iteration: number;
  kind: TaskKind;
  /** verify / review: the pass within the iteration (1-based). */
  pass?: number;
  /** verify: the reviewer routing added beside the verifier (`verify-<p>.<role>`). */
  reviewer?: string;
  /** fix: the fix loop number and the defect it fixes. */
  loop?: number;
  defectId?: string;
}

// Splits a task id into iteration, kind and numbers, so behaviours can depend on them.
export function parseTaskId(id: string): TaskIdParts {
  const prefixed = /^i(\d+)\.(.+)$/.exec(id);
  const iteration = prefixed ? Number(prefixed[1]) : 1;
  const base = prefixed ? (prefixed[2] as string) : id;
  const parts = { id, base, iteration };
  if (base === 'plan' || base === 'prd') return { ...parts, kind: base };
  const pass = /^(verify|review)-(\d+)(?:\.(.+))?$/.exec(base);
  if (pass) return { ...parts, kind: pass[1] as 'verify' | 'review', pass: Number(pass[2]), ...(pass[3] !== undefined && { reviewer: pass[3] }) };
  const fix = /^fix-(\d+)-(.+)$/.exec(base);
  if (fix) return { ...parts, kind: 'fix', loop: Number(fix[1]), defectId: fix[2] as string };
  return { ...parts, kind: 'exec' };
}

// The id a planner's task gets in the given iteration (`t3` → `i2.t3` from iteration 2 on).
export function toIterationId(planId: string, iteration: number): string {
  return iteration >= 2 ? `i${iteration}.${planId}` : planId;
}

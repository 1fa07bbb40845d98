// The verify pass in the fold: the verifier's and each reviewer's verdict, and the union of their
// defects with who found each, whatever order their results come in (stage routing, issue 30).
import type { Defect } from '../schema.js';
import type { PipelineProgress } from './types.js';

// Who a verify attempt is: `verify-<p>` the verifier, `verify-<p>.<role>` a reviewer beside it.
const REVIEWER_ID = /^((?:i\d+\.)?verify-\d+)\.(.+)$/;

// Gates first, then the exec tasks, the verifier, the reviewers: the order concludeVerify gives them.
const RANK: Record<string, number> = { gate: 0, exec: 1, verifier: 2 };
const REVIEWERS = 3;
const rankOf = (by: string | undefined) => (by !== undefined && Object.hasOwn(RANK, by) ? RANK[by]! : REVIEWERS);

// A verify_result of `taskId` folded into the pass it belongs to. `gateDefects`: the gates' of the
// pass, which come with the verifier's result.
export function applyVerifyResult(pipeline: PipelineProgress, taskId: string, verdict: string, defects: Defect[], gateDefects: Defect[]): void {
  const reviewer = REVIEWER_ID.exec(taskId);
  const pass = reviewer ? reviewer[1]! : taskId;
  const by = reviewer ? reviewer[2]! : 'verifier';
  const current = pipeline.verify?.pass === pass ? pipeline.verify : { pass, verdicts: [], defects: [] };
  // A reviewer's defect ids carry its role, as the fix tasks' do (machines/verify-steps.ts).
  const found = reviewer ? defects.map((d) => ({ ...d, id: `${by}-${d.id}`, by })) : [...gateDefects.map((d) => ({ ...d, by: d.by ?? 'gate' })), ...defects.map((d) => ({ ...d, by: d.by ?? by }))];
  // A later result of the same finder (a retried attempt) replaces its earlier one.
  const kept = current.defects.filter((d) => (reviewer ? d.by !== by : rankOf(d.by) === REVIEWERS));
  pipeline.verify = {
    pass,
    verdicts: [...current.verdicts.filter((v) => v.by !== by), { by, verdict }].sort((a, b) => rankOf(a.by) - rankOf(b.by)),
    defects: [...kept, ...found].sort((a, b) => rankOf(a.by) - rankOf(b.by)),
  };
  pipeline.lastDefects = [...pipeline.verify.defects];
}

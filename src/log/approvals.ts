// Approvals against the artifacts as they are now: an approval of another revision is stale.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Approval } from './schema.js';

export interface ApprovalView extends Approval {
  file: string;
  stale: boolean;
  /** Why it is stale: the artifact changed or is gone. */
  staleReason?: string;
}

// sha256 of a file's bytes, in hex.
export function hashFile(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

// Compares the recorded sha256 with the artifact's bytes today.
export function checkApproval(approval: Approval & { file: string }, projectDir: string): ApprovalView {
  const path = join(projectDir, approval.artifact);
  if (!existsSync(path)) return { ...approval, stale: true, staleReason: 'the artifact is gone' };
  const now = hashFile(path);
  return now === approval.sha256 ? { ...approval, stale: false } : { ...approval, stale: true, staleReason: `the artifact changed (sha256 now ${now.slice(0, 12)}…)` };
}


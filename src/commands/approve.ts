// `team approve` and `team state approve`: records a human approval of an artifact revision.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { appendApproval, resolveRun } from '../checkpoint/store.js';
import { LIMITS, validateId, validateProjectPath, validateText } from '../checkpoint/guards.js';
import { hashFile } from '../checkpoint/approvals.js';
import { nowIso } from '../checkpoint/time.js';
import { UsageError } from '../errors.js';
import { optionalString, parseFlags, requireString } from './args.js';
import { openProject, PROJECT_FLAGS } from './project.js';

// Hashes the artifact as it is now and records who approved it.
export function recordApproval(argv: string[], cmd: string): number {
  const args = parseFlags(
    argv,
    { ...PROJECT_FLAGS, run: { type: 'string' }, stage: { type: 'string' }, artifact: { type: 'string' }, by: { type: 'string' }, note: { type: 'string' } },
    cmd,
  );
  const project = openProject(args);
  const runId = optionalString(args, 'run');
  const run = resolveRun(project.dir, runId === undefined ? undefined : validateId(runId, '--run'));
  const stage = validateId(requireString(args, 'stage', cmd), '--stage');
  const artifact = validateProjectPath(project.dir, requireString(args, 'artifact', cmd), '--artifact');
  const by = validateText(requireString(args, 'by', cmd), '--by', LIMITS.by);
  const note = validateText(optionalString(args, 'note') ?? '', '--note');
  const path = join(project.dir, artifact);
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`${cmd}: --artifact ${artifact} is not a file in the project`);
  const sha256 = hashFile(path);
  appendApproval(run, { stage, artifact, sha256, by, approved_at: nowIso(), note }, project.write);
  process.stdout.write(`approved ${artifact} (sha256 ${sha256.slice(0, 12)}…) for ${stage} by ${by}\n`);
  return 0;
}

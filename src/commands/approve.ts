// `team approve` and `team state approve`: records a human approval of an artifact revision, in the
// run's files or (`team approve` with --store or team.store) in the PostgreSQL store.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Approval } from '../log/schema.js';
import { appendApproval, resolveRun } from '../log/write.js';
import { LIMITS, validateId, validateProjectPath, validateText } from '../log/guards.js';
import { hashFile } from '../log/approvals.js';
import { nowIso } from '../log/time.js';
import { UsageError } from '../sys/errors.js';
import { storeUrlOf } from '../store/store-url.js';
import { optionalString, parseFlags, requireString } from './args/args.js';
import { openProject } from './args/project.js';
import { STATE_FLAGS } from './args/state-flags.js';

// Hashes the artifact as it is now and records who approved it.
export async function recordApproval(argv: string[], cmd: string): Promise<number> {
  const onStore = cmd === 'team approve';
  const args = parseFlags(argv, onStore ? STATE_FLAGS.approve : STATE_FLAGS['state approve'], cmd);
  const project = openProject(args, { readsStore: onStore });
  const storeUrl = onStore ? storeUrlOf(optionalString(args, 'store'), project.config) : undefined;
  const runId = optionalString(args, 'run');
  const named = runId === undefined ? undefined : validateId(runId, '--run');
  // The run is known before the artifact is read: a run that is not there is the first thing said.
  const run = storeUrl === undefined ? resolveRun(project.dir, named) : undefined;
  const stage = validateId(requireString(args, 'stage', cmd), '--stage');
  const artifact = validateProjectPath(project.dir, requireString(args, 'artifact', cmd), '--artifact');
  const by = validateText(requireString(args, 'by', cmd), '--by', LIMITS.by);
  const note = validateText(optionalString(args, 'note') ?? '', '--note');
  const path = join(project.dir, artifact);
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`${cmd}: --artifact ${artifact} is not a file in the project`);
  const approval: Approval = { stage, artifact, sha256: hashFile(path), by, approved_at: nowIso(), note };
  if (run) appendApproval(run, approval, project.write);
  else await approveOnStore(storeUrl!, named, approval);
  process.stdout.write(`approved ${artifact} (sha256 ${approval.sha256.slice(0, 12)}…) for ${stage} by ${by}\n`);
  return 0;
}

// The approval of the named run (else the store's latest) as a row of the store.
async function approveOnStore(url: string, runId: string | undefined, approval: Approval): Promise<void> {
  const { openStore, pickRun } = await import('./store/open.js');
  const store = await openStore(url, 'approve');
  try {
    await store.approve(await pickRun(store, url, runId), approval);
  } finally {
    await store.close();
  }
}

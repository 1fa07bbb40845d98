// `team approve` and `team state approve`: records a human approval of an artifact revision, in the
// run's files or (`team approve` with --store or team.store) in the PostgreSQL store.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Approval } from '../log/schema.js';
import { LIMITS, validateId, validateProjectPath, validateText } from '../log/guards.js';
import { hashFile } from '../log/approvals.js';
import { nowIso } from '../log/time.js';
import { UsageError } from '../sys/errors.js';
import { FileStore } from '../store/files/store.js';
import { openStore } from '../store/open.js';
import { withStore } from '../store/types.js';
import { storeUrlOf } from '../store/store-url.js';
import { optionalString, parseFlags, requireString } from './args/args.js';
import { openProject } from './args/project.js';
import { STATE_FLAGS } from './args/state-flags.js';

// Hashes the artifact as it is now and records who approved it.
export async function recordApproval(argv: string[], cmd: string): Promise<number> {
  const onStore = cmd === 'team approve';
  const args = parseFlags(argv, onStore ? STATE_FLAGS.approve : STATE_FLAGS['state approve'], cmd);
  const project = openProject(args, { readsStore: onStore });
  const url = onStore ? storeUrlOf(optionalString(args, 'store'), project.config) : undefined;
  const runId = optionalString(args, 'run');
  const named = runId === undefined ? undefined : validateId(runId, '--run');
  // The run of the files is known before the artifact is read: a run that is not there is the first
  // thing said. The database is reached once the approval is made.
  const files = url === undefined ? new FileStore(project.dir, project.write) : undefined;
  const id = await files?.pickRun(named);
  const stage = validateId(requireString(args, 'stage', cmd), '--stage');
  const artifact = validateProjectPath(project.dir, requireString(args, 'artifact', cmd), '--artifact');
  const by = validateText(requireString(args, 'by', cmd), '--by', LIMITS.by);
  const note = validateText(optionalString(args, 'note') ?? '', '--note');
  const path = join(project.dir, artifact);
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`${cmd}: --artifact ${artifact} is not a file in the project`);
  const approval: Approval = { stage, artifact, sha256: hashFile(path), by, approved_at: nowIso(), note };
  const store = files ?? (await openStore(project, url, 'approve'));
  await withStore(store, async () => store.approve(id ?? (await store.pickRun(named)), approval));
  process.stdout.write(`approved ${artifact} (sha256 ${approval.sha256.slice(0, 12)}…) for ${stage} by ${by}\n`);
  return 0;
}

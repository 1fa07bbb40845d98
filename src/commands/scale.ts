// `team scale [--run ID] N`: asks a run's writer, through its inbox, to run with N workers. The
// writer records it (team_scaled) and the machine answers with the new roster (workers_changed):
// now when the run is driven, else when it resumes. Refused for a run that has ended.
import { makeRunId } from '../log/time.js';
import { validateId } from '../log/guards.js';
import { UsageError } from '../sys/errors.js';
import { terminalLine } from '../sys/terminal-text.js';
import { openStore } from '../store/open.js';
import { withStore } from '../store/types.js';
import { optionalString, parseFlags } from './args/args.js';
import { FLAGS } from './args/flags.js';
import { openProject } from './args/project.js';

// A run in one of these has ended: its workers are gone for good.
const ENDED = new Set(['completed', 'failed', 'cancelled']);

export async function scaleCommand(argv: string[]): Promise<number> {
  const cmd = 'team scale';
  const args = parseFlags(argv, FLAGS.scale, cmd);
  const workers = parseWorkers(args.positionals, cmd);
  const project = openProject(args, { readsStore: true });
  if (workers > project.config.team.maxAgents) throw new UsageError(`${cmd}: ${workers} workers is over team.maxAgents (${project.config.team.maxAgents})`);
  const named = optionalString(args, 'run');
  const runArg = named === undefined ? undefined : validateId(named, '--run');
  const store = await openStore(project, optionalString(args, 'store'), 'scale');
  return withStore(store, async () => {
    const runId = await store.pickRun(runArg);
    const { view } = await store.view(runId, project.dir);
    if (ENDED.has(view.status)) throw new UsageError(`${cmd}: run ${runId} has ended (${view.status}): there are no workers to scale`);
    await store.postRequest(runId, { kind: 'scale', key: `scale-${makeRunId()}`, body: { workers, by: 'team scale' } });
    const live = await store.hasWriter(runId);
    const how = live ? 'its orchestrator records it now (`team status` shows the workers)' : 'no orchestrator drives the run now; it is recorded when the run resumes (`team status` shows it pending)';
    process.stdout.write(`asked run ${runId} to run with ${workers} ${workers === 1 ? 'worker' : 'workers'}: ${how}\n`);
    return 0;
  });
}

// N, a whole number of workers from 1 to 20.
function parseWorkers(positionals: string[], cmd: string): number {
  if (positionals.length !== 1) throw new UsageError(`${cmd}: give one number of workers, 1..20 (e.g. \`team scale 4\`)`);
  const text = positionals[0]!;
  const workers = /^\d{1,2}$/.test(text) ? Number(text) : NaN;
  if (!(workers >= 1 && workers <= 20)) throw new UsageError(`${cmd}: N must be a whole number of workers from 1 to 20, not "${terminalLine(text)}"`);
  return workers;
}

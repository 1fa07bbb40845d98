// `team resume [--run ID] [--retry-interrupted] [--store URL] [--config FILE]`: continues a run from its event log,
// on the store the project names (on the PostgreSQL store from any machine: its attempts go to team
// workers).
import { validateId } from '../log/guards.js';
import { UsageError } from '../sys/errors.js';
import { driveRun } from '../run/drive.js';
import { stopFinishedLeftovers } from '../attempt/attempt.js';
import { makeRunProgress } from '../views/watch/run-progress.js';
import { takeOver } from '../run/takeover.js';
import { faceOf } from '../run/face.js';
import type { RunSession } from '../session/session.js';
import { optionalString, parseFlags } from './args/args.js';
import { detachRun } from '../run/detach.js';
import { FLAGS } from './args/flags.js';
import { describeStage } from '../views/status/render.js';
import { openProject } from './args/project.js';
import { openStore } from '../store/open.js';
import { foldInput, withStore } from '../store/types.js';
import { foldOf } from '../log/fold/fold.js';
import { chooseRunConfig, type RunConfig } from '../run/run-config.js';
import type { Progress } from '../session/progress.js';
import { OUTCOME_EXIT, reportEnd } from './run.js';
import { budgetFlags } from './args/budget.js';
import { lowBudgetProblem, type SpendView } from '../log/fold/spend.js';
import { randomBytes } from 'node:crypto';
import type { RunStore } from '../store/types.js';

// Resumes the latest or named run; returns the exit code of how it ends.
export async function resumeCommand(argv: string[]): Promise<number> {
  const cmd = 'team resume';
  const args = parseFlags(argv, FLAGS.resume, cmd);
  const project = openProject(args, { readsStore: true });
  const runId = optionalString(args, 'run');
  const named = runId === undefined ? undefined : validateId(runId, '--run');
  const store = await openStore(project, optionalString(args, 'store'), cmd);
  const face = faceOf(store);
  const explicit = optionalString(args, 'config') !== undefined;
  const raise = budgetFlags(args, cmd);
  if ((raise.usd !== undefined || raise.tokens !== undefined) && (await raiseLiveBudget(store, named, project.dir, raise))) return 0;
  if (args.values.detach) {
    return withStore(store, async () => {
      const id = await store.pickRun(named);
      face.refuseEnded((await store.view(id, project.dir)).view.status, id);
      // Refused here, not only in the detached orchestrator: a config that cannot run the run says so now.
      const read = foldInput(await store.read(id));
      const st = foldOf(read.run, read.events);
      if (st.started) noteConfig(chooseRunConfig(project, explicit, st, cmd), makeRunProgress({ json: false, projectDir: project.dir }));
      const childArgv = ['resume', ...argv.filter((a) => a !== '--detach'), ...(runId === undefined ? ['--run', id] : [])];
      return detachRun({ argv: childArgv, store, runId: id, creates: false, json: args.values.json === true });
    });
  }
  // The takeover holds the store from here, and closes it when it ends.
  const id = await store.pickRun(named).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const paths = store.paths(id);
  const progress = makeRunProgress({ json: args.values.json === true, projectDir: project.dir });
  face.probe(paths, id);
  const { session, replay, view, release } = await takeOver(store, id, project, progress, cmd, (st) => noteConfig(chooseRunConfig(project, explicit, st, cmd), progress));
  try {
    if (face.endsLeftovers && ENDED.has(view.status)) await endLeftovers(session);
    face.refuseEnded(view.status, id);
    refuseLowBudget(raise, view.spend);
    face.assertGitWritable(project.dir, id, session.isolation.active);
    const left = view.uncertain.length ? ` (${view.uncertain.length} attempt(s) ${face.uncertain})` : '';
    progress.emit({ type: 'run.resumed', run: id, state: replay.snapshot.value }, `teamline: resuming run ${id} ${face.resumesFrom}at ${describeStage(view)}${left}`);
    const raising = raise.usd !== undefined || raise.tokens !== undefined;
    const outcome = await driveRun(session, { replay, retryInterrupted: args.values['retry-interrupted'] === true, ...(raising && { raise }) });
    if (outcome.kind === 'stopped') progress.emit({ type: 'decision', reason: outcome.reason }, `teamline: stopped for a decision: ${outcome.reason}${face.stoppedHint(id)}`);
    reportEnd(face, paths, project.dir, outcome, progress, session.events.fold.view(project.dir));
    return OUTCOME_EXIT[outcome.kind];
  } finally {
    await release();
  }
}

// Says which config the run goes on with when it is not the one the command read.
function noteConfig(chosen: RunConfig, progress: Progress): RunConfig {
  if (chosen.note) progress.emit({ type: 'run.config', configFile: chosen.configFile ?? null }, chosen.note);
  return chosen;
}

const ENDED = new Set(['completed', 'failed', 'cancelled']);

// A raised budget must be above what the run spent already: else it would stop again at once.
function refuseLowBudget(raise: { usd?: number; tokens?: number }, spend: SpendView): void {
  const problem = lowBudgetProblem(raise, spend);
  if (problem) throw new UsageError(`team resume: ${problem}`);
}

// A new budget for a run an orchestrator drives now: left in its writer inbox, recorded as
// budget_raised; false (the store left open) when nothing drives the run, so resume takes it over.
async function raiseLiveBudget(store: RunStore, named: string | undefined, projectDir: string, raise: { usd?: number; tokens?: number }): Promise<boolean> {
  try {
    const id = await store.pickRun(named);
    if (!(await store.hasWriter(id))) return false;
    const { view } = await store.view(id, projectDir);
    faceOf(store).refuseEnded(view.status, id);
    refuseLowBudget(raise, view.spend);
    await store.postRequest(id, { kind: 'budget', key: `budget-${randomBytes(8).toString('hex')}`, body: raise });
    const budget = [...(raise.usd !== undefined ? [`$${raise.usd.toFixed(2)}`] : []), ...(raise.tokens !== undefined ? [`${raise.tokens} tokens`] : [])].join(', ');
    process.stdout.write(`asked run ${id}, which an orchestrator drives now, to raise its budget to ${budget}: its writer records it at once and the run goes on (\`team status\` shows the budget)\n`);
  } catch (error) {
    await store.close();
    throw error;
  }
  await store.close();
  return true;
}

// A run that ended has nothing to resume; what a crash right after its end left running (its tmux
// server, a process group its orchestrator had not seen go, an escapee of a finished attempt) is
// ended all the same, as the orchestrator would have. Only what the log recorded, and only while it
// is still ours.
async function endLeftovers(session: RunSession): Promise<void> {
  const { registry } = session;
  await Promise.all(registry.all().map((handle) => registry.backendOf(handle).stop(handle, { graceMs: 0 }).catch(() => undefined)));
  // The escapees of its last attempts: stopped once their ends were recorded, so a crash can come first.
  await stopFinishedLeftovers(session).catch(() => undefined);
  if (session.keepPanes) return;
  await registry.killTmuxServers(session.runId);
}

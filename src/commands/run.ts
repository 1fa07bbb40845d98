// `team [N:agent-type] "task"` and `team ralph [N:agent-type] "task"`: start a run and drive it.
import { join } from 'node:path';
import { terminalLine } from '../sys/terminal-text.js';
import { LIMITS, validateId, validateText } from '../log/guards.js';
import { makeRunId } from '../log/time.js';
import { COST_MODES, type CostMode } from '../log/schema.js';
import { EXIT, UsageError } from '../sys/errors.js';
import { resolveRouting } from '../attempt/prepare/agents.js';
import { makeProgress } from '../session/progress.js';
import { makeRunProgress } from '../views/watch/run-progress.js';
import { startRun } from '../run/start.js';
import type { RunFace } from '../run/face.js';
import { loadRunView } from '../log/read-view.js';
import { summarize, type WorkPlaces } from '../run/summary.js';
import { CHECKPOINT_FILE, checkpointsDir } from '../checkpoint/write.js';
import type { RunView } from '../log/fold/fold.js';
import type { DriveOutcome } from '../run/drive.js';
import { optionalInt, optionalString, parseFlags } from './args/args.js';
import { DETACHED_RUN_VAR, detachRun } from '../run/detach.js';
import { readSessionIds } from './args/host-session.js';
import { refuseOneWordTask } from './args/one-word.js';
import { FLAGS } from './args/flags.js';
import { openProject } from './args/project.js';
import { openStore } from '../store/open.js';
import { withStore, type RunStore } from '../store/types.js';
import { storeUrlOf } from '../store/store-url.js';
import { budgetFlags } from './args/budget.js';
import { MAX_BEST_OF } from '../log/schema.js';

// The exit code of each way a run can end.
export const OUTCOME_EXIT: Record<DriveOutcome['kind'], number> = { completed: EXIT.completed, failed: EXIT.failed, cancelled: EXIT.cancelled, stopped: EXIT.decision };

// --cost-mode's value, refused with the values it takes.
function parseCostMode(value: string | undefined, cmd: string): CostMode | undefined {
  if (value === undefined) return undefined;
  if ((COST_MODES as readonly string[]).includes(value)) return value as CostMode;
  throw new UsageError(`${cmd}: --cost-mode must be one of ${COST_MODES.join(', ')}, not "${terminalLine(value)}"`);
}

// Starts a team or ralph run; returns its exit code.
export async function runTeam(argv: string[], mode: 'team' | 'ralph'): Promise<number> {
  const cmd = mode === 'ralph' ? 'team ralph' : 'team';
  if (mode === 'team' && argv.some((a) => a.split('=')[0] === '--max-iterations')) throw new UsageError(`${cmd}: --max-iterations belongs to \`team ralph\``);
  const args = parseFlags(argv, mode === 'ralph' ? FLAGS.ralph : FLAGS.run, cmd);
  if (args.values.tmux && args.values.headless) throw new UsageError(`${cmd}: --tmux and --headless exclude each other`);
  const { teamArg, task } = splitPositionals(args.positionals, cmd, optionalString(args, 'task'));
  const project = openProject(args, { readsStore: true });
  const storeUrl = storeUrlOf(optionalString(args, 'store'), project.config);
  if (storeUrl !== undefined) refuseOnStore(args.values, cmd);
  const config = structuredClone(project.config);
  const maxFixLoops = optionalInt(args, 'max-fix-loops', cmd, 0, 100);
  if (maxFixLoops !== undefined) config.team.maxFixLoops = maxFixLoops;
  const maxIterations = optionalInt(args, 'max-iterations', cmd, 1, 1000);
  if (maxIterations !== undefined) config.ralph.maxIterations = maxIterations;
  const bestOf = optionalInt(args, 'best-of', cmd, 1, MAX_BEST_OF);
  if (bestOf !== undefined) config.team.bestOf = bestOf;
  const budget = budgetFlags(args, cmd);
  if (budget.usd !== undefined || budget.tokens !== undefined) config.team.budget = { onExceed: 'stop', ...config.team.budget, ...budget };
  const workers = teamArg?.workers ?? config.team.defaultWorkers;
  if (workers > config.team.maxAgents) throw new UsageError(`N:agent-type: ${workers} workers is over team.maxAgents (${config.team.maxAgents})`);
  const routing = resolveRouting(config, teamArg?.type, optionalString(args, 'agent'));
  const costMode = parseCostMode(optionalString(args, 'cost-mode'), cmd);
  const json = args.values.json === true;
  if (args.values.detach) {
    const runId = makeRunId();
    const childArgv = [...(mode === 'ralph' ? ['ralph'] : []), ...argv.filter((a) => a !== '--detach')];
    const store = await openStore(project, storeUrl, 'detach');
    return withStore(store, () => detachRun({ argv: childArgv, store, runId, creates: true, json }));
  }
  const detachedId = process.env[DETACHED_RUN_VAR];
  delete process.env[DETACHED_RUN_VAR];
  const progress = makeRunProgress({ json, projectDir: project.dir });
  const request = {
    runId: detachedId === undefined ? undefined : validateId(detachedId, DETACHED_RUN_VAR),
    projectDir: project.dir,
    config,
    configFile: project.configFile,
    mode,
    task,
    workers,
    routing,
    workerMode: args.values.tmux ? ('tmux' as const) : args.values.headless ? ('headless' as const) : config.team.mode,
    keepPanes: args.values['keep-panes'] === true,
    progress,
    session: readSessionIds(),
    land: args.values.land === true,
    ...(costMode !== undefined && { costMode }),
  };
  const store = await openStore(project, storeUrl, 'team');
  const { outcome, paths, runId, view, face } = await withStore(store, () => startRun(request, store));
  // --land goes only with the files (refuseOnStore).
  if (outcome.kind === 'completed' && args.values.land) await landAfterRun(store, runId, project.dir, progress);
  reportEnd(face, paths, project.dir, outcome, progress, view);
  return OUTCOME_EXIT[outcome.kind];
}

// --land: lands the completed run; a refusal is said, and the summary then names the command.
async function landAfterRun(store: RunStore, runId: string, projectDir: string, progress: ReturnType<typeof makeProgress>): Promise<void> {
  try {
    await (await import('./git/land.js')).landWork(store, runId, progress, projectDir);
  } catch (error) {
    progress.emit({ type: 'land.refused', run: runId, reason: (error as Error).message }, `--land: ${(error as Error).message}`);
  }
}

// With the PostgreSQL store the attempts run on team workers: what needs this machine is refused.
function refuseOnStore(values: Record<string, unknown>, cmd: string): void {
  for (const flag of ['tmux', 'land', 'keep-panes'] as const) {
    if (values[flag]) throw new UsageError(`${cmd}: --${flag} does not go with a PostgreSQL store: its attempts run on team workers, each in its own folder`);
  }
}

// Prints the final summary. A run of this machine's files is read again from its log (a landing
// after the run is in it), with where the work is; a run on the store from the view its writer held.
export function reportEnd(face: RunFace, paths: Parameters<typeof loadRunView>[0], projectDir: string, outcome: DriveOutcome, progress: ReturnType<typeof makeProgress>, held: RunView): void {
  const view = face.placesHere ? loadRunView(paths, projectDir) : held;
  const { lines, data } = summarize(view, outcome, paths.runDir, face.placesHere ? workPlaces(view, projectDir) : undefined);
  progress.emit(data, lines.join('\n'));
}

// Where a run of the files keeps its work: its branches (its view's) and the project's checkpoint file.
export function workPlaces({ branches }: Pick<RunView, 'branches'>, projectDir: string): WorkPlaces {
  return { ...(branches && { branches }), checkpointFile: join(checkpointsDir(projectDir), CHECKPOINT_FILE), projectDir };
}

// Words people put before the task, though a run has no command word.
const START_WORDS = new Set(['run', 'start', 'new', 'team']);

// `[N:type] "task"`: N is 1..20; the type is a role or an agent.
// `--task TEXT` gives the task as a flag (the only way to run a one-word task).
function splitPositionals(positionals: string[], cmd: string, taskFlag: string | undefined): { teamArg?: { workers: number; type?: string }; task: string } {
  let rest = positionals;
  let teamArg: { workers: number; type?: string } | undefined;
  const first = rest[0];
  if (first !== undefined && rest.length === 1 && taskFlag === undefined && /^\d+:/.test(first)) {
    throw new UsageError(`${cmd}: the task is missing: "${first}" is the N:agent-type; give the task as one quoted argument after it`);
  }
  const hasTask = rest.length > 1 || taskFlag !== undefined;
  if (first !== undefined && /^\d+(:.*)?$/.test(first) && hasTask) {
    const match = /^(\d+)(?::(.*))?$/.exec(first)!;
    const workers = Number(match[1]);
    if (!Number.isInteger(workers) || workers < 1 || workers > 20) throw new UsageError(`N:agent-type: N must be from 1 to 20, not "${match[1]}"`);
    const type = match[2];
    if (type !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(type)) throw new UsageError(`N:agent-type: "${type}" is not a valid agent type`);
    teamArg = { workers, type };
    rest = rest.slice(1);
  } else if (first !== undefined && /^[^\s]*:[^\s]*$/.test(first) && hasTask) {
    throw new UsageError(`N:agent-type: "${first}" is not of the form N:agent-type (e.g. 3:executor)`);
  }
  if (taskFlag !== undefined) {
    if (rest.length > 0) throw new UsageError(`${cmd}: --task and a task argument ("${rest.join(' ')}") exclude each other`);
    rest = [taskFlag];
  } else if (rest.length === 1) refuseOneWordTask(rest[0]!, cmd);
  // `team run "task"`, `team start "task"`: a run has no command word of its own.
  if (rest.length === 2 && cmd === 'team' && START_WORDS.has(rest[0]!)) {
    throw new UsageError(`"${rest[0]}" is not a command: a run starts with the task alone, \`team "${terminalLine(rest[1]!).slice(0, 60)}"\` (\`team --help\` lists the commands)`);
  }
  if (rest.length !== 1) throw new UsageError(`${cmd}: give the task as one quoted argument${rest.length > 1 ? ` (got ${rest.length} words: quote them)` : ''}`);
  const task = validateText(rest[0]!, 'task', LIMITS.task);
  if (task.trim() === '') throw new UsageError(`${cmd}: the task is empty`);
  return { teamArg, task };
}

// Runs one attempt, "reconcile or start", keyed by run + task + attempt: a fresh dispatch starts a
// worker; after a restart the recorded worker is re-adopted, its result adopted, or the attempt
// is recorded interrupted. Never starts the same attempt twice.
import type { AttemptInput } from '../../machines/types.js';
import type { AgentAdapter, AgentConfig, LaunchSpec, WorkerBackend, WorkerHandle } from '../../workers/types.js';
import { permissionFor } from '../../workers/adapters/permissions.js';
import { stopRunLeftovers } from '../../workers/escapees.js';
import { stopAttemptEscapees } from './execute.js';
import { elsewhere } from '../sys/proc.js';
import { resolveAttemptAgent } from './prepare/agents.js';
import { adoptUnrecorded, workerMayHaveStarted } from './adopt.js';
import { attemptFiles, finishInterrupted, type AttemptFiles } from './records.js';
import { concludeAttempt } from './conclude.js';
import { prepareAttempt } from '../isolation/attempt.js';
import { attemptEnv } from './prepare/env.js';
import { teamServerFor } from './prepare/team-server.js';
import { promptHandoffTexts } from './prepare/handoff-texts.js';
import { buildPrompt, type PromptContext } from './prepare/prompts.js';
import { candidateFacts, withDiffStats } from './prepare/candidates.js';
import { taskBranch } from '../session/isolation.js';
import type { RunSession } from '../session/session.js';
import { watchWorker } from './watchdog.js';
import { openDesk } from '../team-tools/desk.js';
import { askToolsFirst } from './ask-tools.js';
import { messagesTo } from '../log/fold/team.js';
import { prepareLaunch, takesToolCalls } from './prepare/launch.js';
import type { Stage } from '../../workers/types.js';
import { earlierAttempt } from './prepare/earlier.js';
import { fenceAttempt } from '../isolation/fence.js';

export type AttemptRequest = AttemptInput;

// How long the stop of a finished attempt's escapees waits for other attempts' ends, to share their
// look at /proc (a read of every process of the machine): at most this much longer they live. It
// waits only while other attempts of the run are under way (the last one's end is the run's).
const ESCAPEES_GATHER_MS = 25;

// How many attempts of each session are between their start and their end.
const underWay = new WeakMap<RunSession, number>();

// The effect behind the machine's runAttempt actor when this machine runs the attempt (the queued
// face, src/remote/attempt.ts, runs it on a team worker).
export async function runAttempt(session: RunSession, input: AttemptRequest, signal: AbortSignal): Promise<void> {
  underWay.set(session, (underWay.get(session) ?? 0) + 1);
  try {
    await runLocalAttempt(session, input, signal);
  } finally {
    underWay.set(session, underWay.get(session)! - 1);
  }
}

async function runLocalAttempt(session: RunSession, input: AttemptRequest, signal: AbortSignal): Promise<void> {
  const files = attemptFiles(session, input.taskId, input.attempt);
  const { adapter, agent } = resolveAttemptAgent(session.config, input);
  const backend = session.registry.backend(agent.tmux ? 'tmux' : session.mode);
  await prepareAttempt(session, input);
  const spec = makeLaunchSpec(session, input, files, adapter, agent);
  let handle = input.resumed ? (session.registry.get(input.taskId, input.attempt) ?? adoptUnrecorded(session, input, files.dir)) : undefined;
  let recovered = false;
  if (handle) {
    recovered = !(await session.registry.backendOf(handle).isAlive(handle));
    session.progress.emit({ type: 'attempt.adopted', task: input.taskId, attempt: input.attempt, alive: !recovered }, `↺ ${input.taskId} a${input.attempt} ${recovered ? 'ended while no orchestrator watched: reading its result' : 're-adopted, still running'} (${input.worker})`);
  } else {
    // A resumed attempt whose worker left no trace cannot have done anything: it starts now, unasked.
    if (input.resumed && workerMayHaveStarted(session.runId, input, files)) return finishInterrupted(session, input, 'the orchestrator stopped while this attempt\'s worker was starting');
    if (input.resumed) session.progress.emit({ type: 'attempt.unstarted', task: input.taskId, attempt: input.attempt }, `↻ ${input.taskId} a${input.attempt} never started before the orchestrator stopped: starting it now`);
    handle = await startWorker(session, input, files, spec, backend, adapter, agent);
  }
  // The team tools' calls are taken while the attempt runs, and those left once it ended (an agent
  // that cannot call them has no desk).
  const desk = takesToolCalls({ agent, adapter }) ? openDesk(session, { task: input.taskId, attempt: input.attempt, worker: input.worker, stage: input.stage as Stage, workDir: spec.cwd, attemptDir: files.dir, resultFile: files.resultFile }) : undefined;
  const asked = askToolsFirst(session, input, files.dir, signal);
  const exit = await watchWorker(session, handle, spec, input, asked.signal, adapter).finally(() => (asked.release(), desk?.close()));
  // Descendants that left the worker's process group (setsid) end with the attempt: before a
  // cancelled one is recorded, and once a finished one is, so that the worker's next task need not
  // wait for the look at /proc, which attempts that end within ESCAPEES_GATHER_MS share. The run
  // ends only once they are stopped; a takeover stops those a crash left in between (drive.ts).
  const escapees = (gatherMs = 0) => stopAttemptEscapees(session.runId, input.taskId, input.attempt, handle, gatherMs);
  if (exit.stopped && signal.aborted) {
    await escapees();
    return finishInterrupted(session, input, `${whatStopped(session)} (${exit.reason ?? 'worker ended'})`);
  }
  // This attempt is counted: others are under way when the count is above one.
  const gatherMs = underWay.get(session)! > 1 ? ESCAPEES_GATHER_MS : 0;
  const concluded = concludeAttempt(session, input, files, adapter, exit, recovered, signal);
  // Tracked before the end is recorded, so the run's end (which waits for what is tracked) cannot come first.
  const stop = concluded.catch(() => undefined).then(() => escapees(gatherMs));
  void session.cancel.track(stop.catch((error: unknown) => session.log.warn({ err: error, task: input.taskId, attempt: input.attempt }, 'escaped descendants not looked for')));
  await concluded;
}

// A takeover's look for what the run's finished attempts left running: a crash between an attempt's
// end and the stop of its escapees leaves them to the next orchestrator. Resolves with how many.
export function stopFinishedLeftovers(session: RunSession): Promise<number> {
  const finished = new Map<string, number>();
  const { tasks, terminalFiles } = session.events.fold.state;
  for (const task of tasks.values()) {
    for (const { attempt } of task.attempts) {
      const handle = terminalFiles.has(`${task.id}#${attempt}`) ? session.registry.get(task.id, attempt) : undefined;
      // A worker of another boot left nothing running on this one.
      if (handle && !elsewhere(handle)) finished.set(`${task.id}#${attempt}`, handle.pidStart);
    }
  }
  return stopRunLeftovers(session.runId, finished);
}

async function startWorker(session: RunSession, input: AttemptInput, files: AttemptFiles, spec: LaunchSpec, backend: WorkerBackend, adapter: AgentAdapter, agent: AgentConfig): Promise<WorkerHandle> {
  const handoffTexts = promptHandoffTexts(session, input.handoffs);
  const teamServer = teamServerFor(agent, adapter, files.dir);
  const messages = messagesTo(session.events.fold.state.team, input.taskId);
  const workDir = session.isolation.workDir(input.stage, input.worker);
  const earlier = input.attempt > 1 ? await earlierAttempt(session.events.fold.state.tasks.get(input.taskId), input.attempt, workDir, session.runId) : undefined;
  const candidates = await candidatesOf(session, input);
  const prompt = buildPrompt({ input, config: session.config, configFile: session.configFile, projectDir: workDir, resultFile: files.resultFile, handoffTexts, workers: session.workers, messages, teamTools: teamServer !== undefined, ...(earlier && { earlier }), ...(candidates && { candidates }) });
  await prepareLaunch(spec, { prompt, stage: input.stage, agent, adapter, permission: permissionFor(agent, input.stage), projectDir: session.projectDir });
  await fenceAttempt(session.config.team.fence, spec, adapter, session.config.team.fenceWritable);
  const handle = await backend.launch(spec, (launched) => {
    session.registry.record(input.taskId, input.attempt, launched);
    session.events.append({ event: 'attempt_spawned', task_id: input.taskId, attempt: input.attempt, worker: input.worker, handle: launched });
    // A pane's agent waits until its pane is in the log. A process runs from its spawn (its pid file
    // covers a crash before the record is durable): its record is committed at once, and the watch
    // need not wait for that, as every later effect on the worker (a stop, the task's end) does.
    if (launched.backend === 'tmux') return session.events.flush();
    void session.events.settled();
    return undefined;
  });
  session.progress.emit(
    { type: 'attempt.started', task: input.taskId, attempt: input.attempt, worker: input.worker, stage: input.stage, agent: input.agent },
    `▶ ${input.taskId} a${input.attempt} started on ${input.worker} (${input.candidates ? `the selector of ${input.candidates.length} candidates` : input.stage}, agent ${input.agent}${handle.backend === 'tmux' ? `, pane ${handle.paneId}` : ''})`,
  );
  return handle;
}

function makeLaunchSpec(session: RunSession, input: AttemptInput, files: AttemptFiles, adapter: AgentAdapter, agent: AgentConfig): LaunchSpec {
  return {
    runId: session.runId,
    taskId: input.taskId,
    attempt: input.attempt,
    worker: input.worker,
    attemptDir: files.dir,
    cwd: session.isolation.workDir(input.stage, input.worker),
    command: { file: adapter.name, args: [] },
    env: {
      ...attemptEnv(session.runId, input, permissionFor(agent, input.stage)),
      TEAM_PROMPT_FILE: files.promptFile,
      TEAM_RESULT_FILE: files.resultFile,
      TEAM_PROJECT_DIR: session.isolation.workDir(input.stage, input.worker),
      ...(agent.env ?? {}),
    },
  };
}

// The selector's candidates (the best of N), each with the size of its change.
async function candidatesOf(session: RunSession, input: AttemptInput): Promise<PromptContext['candidates']> {
  if (input.candidates === undefined) return undefined;
  const iso = session.isolation;
  const facts = candidateFacts(session.events.fold.state.tasks, input.candidates, (id) => (iso.active ? taskBranch(iso.branch, id) : id));
  return { facts: iso.active ? await withDiffStats(facts, iso.projectDir, iso.branch) : facts, workBranch: iso.active ? iso.branch : 'HEAD' };
}

// Who stopped an attempt the run stopped: a cancel, else what the fold says ended it (its budget).
function whatStopped(session: RunSession): string {
  const st = session.events.fold.state;
  return st.status === 'cancelling' ? 'stopped by cancel' : `stopped: ${st.spend?.exceeded ?? 'the run stopped it'}`;
}

// Runs one attempt, "reconcile or start", keyed by run + task + attempt: a fresh dispatch starts a
// worker; after a restart the recorded worker is re-adopted, its result adopted, or the attempt
// is recorded interrupted. Never starts the same attempt twice.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { AttemptInput } from '../../machines/types.js';
import type { AgentAdapter, AgentConfig, LaunchSpec, WorkerBackend, WorkerHandle } from '../../workers/types.js';
import { readHandoffs } from '../../handoffs/read.js';
import { permissionFor } from '../../workers/adapters/permissions.js';
import { resolveAgent } from './agents.js';
import { adoptUnrecorded } from './adopt.js';
import { concludeAttempt } from './conclude.js';
import { buildPrompt } from './prompts.js';
import type { RunSession } from './session.js';
import { watchWorker } from './watch.js';

export type AttemptRequest = AttemptInput;

export interface AttemptFiles {
  dir: string;
  promptFile: string;
  resultFile: string;
}

// Where an attempt's files live.
export function attemptFiles(session: RunSession, taskId: string, attempt: number): AttemptFiles {
  const dir = join(session.paths.attemptsDir, taskId, `a${attempt}`);
  return { dir, promptFile: join(dir, 'prompt.md'), resultFile: join(dir, 'result.json') };
}

// The effect behind the machine's runAttempt actor.
export async function runAttempt(session: RunSession, input: AttemptRequest, signal: AbortSignal): Promise<void> {
  const files = attemptFiles(session, input.taskId, input.attempt);
  const { adapter, agent } = resolveAgent(session.config, input.agent);
  const backend = session.backend(agent.tmux ? 'tmux' : session.mode);
  const spec = makeLaunchSpec(session, input, files, adapter, agent);
  const key = `${input.taskId}#${input.attempt}`;
  let handle = session.handles.get(key);
  let recovered = false;
  if (input.resumed) {
    handle ??= adoptUnrecorded(session, input, files.dir);
    if (!handle) return finishInterrupted(session, input, 'the orchestrator stopped before this attempt\'s worker started');
    recovered = !(await session.backendOf(handle).isAlive(handle));
    session.progress.emit({ type: 'attempt.adopted', task: input.taskId, attempt: input.attempt, alive: !recovered }, `↺ ${input.taskId} a${input.attempt} ${recovered ? 'ended while no orchestrator watched: reading its result' : 're-adopted, still running'} (${input.worker})`);
  } else {
    handle = await startWorker(session, input, files, spec, backend, adapter, agent);
  }
  const exit = await watchWorker(session, handle, spec, input, signal, adapter);
  if (exit.stopped && signal.aborted) return finishInterrupted(session, input, `stopped by cancel (${exit.reason ?? 'worker ended'})`);
  concludeAttempt(session, input, files, adapter, exit, recovered);
}

async function startWorker(session: RunSession, input: AttemptInput, files: AttemptFiles, spec: LaunchSpec, backend: WorkerBackend, adapter: AgentAdapter, agent: AgentConfig): Promise<WorkerHandle> {
  mkdirSync(files.dir, { recursive: true });
  const wanted = new Set(input.handoffs.map((h) => basename(h.path)));
  const handoffTexts = readHandoffs(session.paths.handoffsDir).filter((h) => wanted.has(basename(h.file))).map((h) => h.text);
  const prompt = buildPrompt({ input, config: session.config, configFile: session.configFile, projectDir: session.projectDir, resultFile: files.resultFile, handoffTexts, workers: session.workers });
  writeFileSync(files.promptFile, prompt);
  spec.command = adapter.build({ prompt, promptFile: files.promptFile, resultFile: files.resultFile, projectDir: session.projectDir, agent, stage: input.stage, permission: permissionFor(agent, input.stage) });
  const handle = await backend.launch(spec, (launched) => {
    session.handles.set(`${input.taskId}#${input.attempt}`, launched);
    session.append({ event: 'attempt_spawned', task_id: input.taskId, attempt: input.attempt, worker: input.worker, handle: launched });
  });
  session.progress.emit(
    { type: 'attempt.started', task: input.taskId, attempt: input.attempt, worker: input.worker, stage: input.stage, agent: input.agent },
    `▶ ${input.taskId} a${input.attempt} started on ${input.worker} (${input.stage}, agent ${input.agent}${handle.backend === 'tmux' ? `, pane ${handle.paneId}` : ''})`,
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
    cwd: session.projectDir,
    command: { file: adapter.name, args: [] },
    env: {
      TEAM_RUN_ID: session.runId,
      TEAM_TASK_ID: input.taskId,
      TEAM_ATTEMPT: String(input.attempt),
      TEAM_STAGE: input.stage,
      TEAM_ROLE: input.role,
      TEAM_WORKER: input.worker,
      TEAM_PROMPT_FILE: files.promptFile,
      TEAM_RESULT_FILE: files.resultFile,
      TEAM_PROJECT_DIR: session.projectDir,
      TEAM_PERMISSION: permissionFor(agent, input.stage),
      ...(agent.env ?? {}),
    },
  };
}

// Records the attempt as interrupted: it did not finish, and it will not be started again.
export function finishInterrupted(session: RunSession, input: AttemptInput, evidence: string): void {
  session.progress.emit({ type: 'attempt.finished', task: input.taskId, attempt: input.attempt, status: 'interrupted', evidence }, `■ ${input.taskId} a${input.attempt} interrupted: ${evidence}`);
  session.commit(taskFinished(session, input, 'interrupted', evidence, [], ''));
}

// The seed's task_finished event; `retryable: false` marks a failure no retry can fix.
export function taskFinished(session: RunSession, input: AttemptInput, status: 'completed' | 'failed' | 'interrupted', evidence: string, artifacts: string[], next: string, retryable?: false) {
  return {
    event: 'task_finished' as const,
    task_id: input.taskId,
    stage: input.stage,
    agent: input.agent,
    attempt: input.attempt,
    status,
    session: session.sessionIds.session,
    parent_session: session.sessionIds.parent_session,
    inputs: input.handoffs.map((h) => h.path),
    artifacts,
    evidence,
    next,
    ...(retryable === false && { retryable }),
  };
}

// The job of an attempt that a `team worker` runs (PostgreSQL store): what the orchestrator would
// launch itself, less the paths of its own machine. The prompt's project folder and result file are
// left as {{projectDir}} and {{resultFile}}, which the worker fills in with its own.
import type { AttemptInput } from '../../machines/types.js';
import { permissionFor } from '../../workers/adapters/permissions.js';
import type { AttemptJob } from '../store/pg/attempt-job.js';
import { resolveAgent } from '../run/agents.js';
import { attemptCapMs } from '../attempt/cap.js';
import { attemptEnv } from '../attempt/env.js';
import { handoffTextsOf } from '../run/handoff-texts.js';
import { isWorkStage, taskBranch } from '../isolation/isolation.js';
import { conflictToFix } from '../isolation/attempt.js';
import { buildPrompt } from '../run/prompts.js';
import type { RunSession } from '../run/session.js';

// The placeholders a worker fills in when it writes the prompt.
export const WORKER_PLACES = { projectDir: '{{projectDir}}', resultFile: '{{resultFile}}' } as const;

// The job of the attempt, made when the commit of its task_started is under way.
export function makeAttemptJob(session: RunSession, input: AttemptInput): AttemptJob {
  const { agent } = resolveAgent(session.config, input.agent);
  const permission = permissionFor(agent, input.stage);
  const prompt = buildPrompt({
    input,
    config: session.config,
    configFile: session.configFile,
    projectDir: WORKER_PLACES.projectDir,
    resultFile: WORKER_PLACES.resultFile,
    handoffTexts: handoffTextsOf(session, input.handoffs.map((h) => h.path)),
    workers: session.workers,
  });
  return {
    runId: session.runId,
    taskId: input.taskId,
    attempt: input.attempt,
    worker: input.worker,
    stage: input.stage,
    role: input.role,
    agentName: input.agent,
    agent,
    permission,
    prompt,
    capMs: attemptCapMs(session.config, input.stage),
    silenceMs: session.limits.reassignMs,
    stallMs: session.limits.statusCheckMs,
    ...gitOf(session, input),
    env: { ...attemptEnv(session.runId, input, permission), ...(agent.env ?? {}) },
  };
}

// Through a remote: the base every attempt fetches, and the branch an exec or fix attempt works on.
function gitOf(session: RunSession, input: AttemptInput): Pick<AttemptJob, 'git'> {
  const iso = session.isolation;
  if (iso.remote === undefined) return {};
  const branch = isWorkStage(input.stage) ? { branch: taskBranch(iso.branch, input.taskId) } : {};
  const conflict = conflictToFix(session, input);
  return { git: { remote: iso.remote, base: iso.branch, ...branch, ...(conflict && { merging: conflict.branch }), prefix: iso.record?.prefix ?? '' } };
}

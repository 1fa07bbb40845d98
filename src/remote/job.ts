// The job of an attempt that a `team worker` runs (PostgreSQL store): what the orchestrator would
// launch itself, less the paths of its own machine. The prompt's project folder and result file are
// left as {{projectDir}} and {{resultFile}}, which the worker fills in with its own.
import type { AttemptInput } from '../../machines/types.js';
import { permissionFor } from '../../workers/adapters/permissions.js';
import type { AttemptJob } from '../store/attempt-queue.js';
import { resolveAttemptAgent } from '../attempt/prepare/agents.js';
import { attemptCapMs } from '../attempt/cap.js';
import { attemptEnv } from '../attempt/prepare/env.js';
import { promptHandoffTexts } from '../attempt/prepare/handoff-texts.js';
import { isWorkStage, taskBranch } from '../session/isolation.js';
import { conflictToFix } from '../isolation/attempt.js';
import { buildPrompt } from '../attempt/prepare/prompts.js';
import { messagesTo } from '../log/fold/team.js';
import { hasTeamTools } from '../../workers/adapters/team-tools.js';
import type { TeamConfig } from '../../config/schema.js';
import type { Limits } from '../log/schema.js';
import type { RunPaths } from '../log/write.js';
import type { IsolationParts } from '../session/isolation.js';
import { earlierEnd } from '../attempt/prepare/earlier.js';
import { candidateFacts, withPendingFacts } from '../attempt/prepare/candidates.js';

// What making an attempt's job uses of a run: its isolation, folder, config, limits and size.
export type JobParts = IsolationParts & {
  readonly runId: string;
  readonly paths: RunPaths;
  readonly config: TeamConfig;
  readonly configFile?: string;
  readonly workers: number;
  readonly limits: Limits;
};

// The placeholders a worker fills in when it writes the prompt.
export const WORKER_PLACES = { projectDir: '{{projectDir}}', resultFile: '{{resultFile}}' } as const;

// The job of the attempt, made when the commit of its task_started is under way.
export function makeAttemptJob(run: JobParts, input: AttemptInput): AttemptJob {
  const { adapter, agent } = resolveAttemptAgent(run.config, input);
  const permission = permissionFor(agent, input.stage);
  const prompt = buildPrompt({
    input,
    config: run.config,
    configFile: run.configFile,
    projectDir: WORKER_PLACES.projectDir,
    resultFile: WORKER_PLACES.resultFile,
    handoffTexts: promptHandoffTexts(run, input.handoffs),
    workers: run.workers,
    messages: messagesTo(run.events.fold.state.team, input.taskId),
    teamTools: hasTeamTools(agent, adapter),
    ...(input.attempt > 1 && { earlier: earlierEnd(run.events.fold.state.tasks.get(input.taskId), input.attempt) }),
    // The selector's candidates (the best of N), with their gates (run on this machine, in worktrees of
    // their pushed branches): the job is made in the step that commits its task_started, which may
    // hold the last candidate's gates and end, not yet in the fold.
    ...(input.candidates && { candidates: { facts: withPendingFacts(candidateFacts(run.events.fold.state.tasks, input.candidates, (id) => (run.isolation.active ? taskBranch(run.isolation.branch, id) : id)), run.events.fold.pendingEvents()), workBranch: run.isolation.active ? run.isolation.branch : 'HEAD' } }),
  });
  return {
    runId: run.runId,
    taskId: input.taskId,
    attempt: input.attempt,
    worker: input.worker,
    stage: input.stage,
    role: input.role,
    agentName: input.agent,
    agent,
    permission,
    prompt,
    capMs: attemptCapMs(run.config, input.stage),
    fence: run.config.team.fence,
    ...(run.config.team.fenceWritable.length > 0 && { fenceWritable: run.config.team.fenceWritable }),
    silenceMs: run.limits.reassignMs,
    stallMs: run.limits.statusCheckMs,
    ...gitOf(run, input),
    env: { ...attemptEnv(run.runId, input, permission), ...(agent.env ?? {}) },
  };
}

// Through a remote: the base every attempt fetches, and the branch an exec or fix attempt works on.
function gitOf(run: JobParts, input: AttemptInput): Pick<AttemptJob, 'git'> {
  const iso = run.isolation;
  if (iso.remote === undefined) return {};
  const branch = isWorkStage(input.stage) ? { branch: taskBranch(iso.branch, input.taskId) } : {};
  const conflict = conflictToFix(run, input);
  return { git: { remote: iso.remote, base: iso.branch, ...branch, ...(conflict && { merging: conflict.branch }), prefix: iso.record?.prefix ?? '' } };
}

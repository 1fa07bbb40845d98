// `team state <start-run|start-task|finish-task|retry|approve|status>`: the low-level checkpoint commands.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../sys/atomic.js';
import { appendEvent, createRun, resolveRun } from '../log/write.js';
import { TERMINAL_STATUSES } from '../log/schema.js';
import { LIMITS, validateId, validateProjectPaths, validateText } from '../log/guards.js';
import { UsageError } from '../sys/errors.js';
import { loadRunView } from '../log/read-view.js';
import { listOf, optionalString, parseFlags, requireString, type ParsedArgs } from './args/args.js';
import { recordApproval } from './approve.js';
import { openProject } from './args/project.js';
import { STATE_FLAGS } from './args/state-flags.js';
import { runStatus } from './follow/status.js';

// Runs one `team state` subcommand; returns the exit code.
export function runState(argv: string[]): number | Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'start-run':
      return startRun(rest);
    case 'start-task':
      return startTask(rest);
    case 'finish-task':
      return finishTask(rest);
    case 'retry':
      return retryTask(rest);
    case 'approve':
      return recordApproval(rest, 'team state approve');
    case 'status':
      return runStatus(rest, 'team state status');
    default:
      throw new UsageError(`team state: unknown command ${JSON.stringify(sub ?? '')}; use start-run, start-task, finish-task, retry, approve or status`);
  }
}

function sessionOf(args: ParsedArgs): { session: string; parent_session: string } {
  const session = optionalString(args, 'session') ?? process.env.TEAM_SESSION ?? '';
  const parent = optionalString(args, 'parent-session') ?? process.env.TEAM_PARENT_SESSION ?? '';
  return { session: validateText(session, '--session', LIMITS.by), parent_session: validateText(parent, '--parent-session', LIMITS.by) };
}

function startRun(argv: string[]): number {
  const cmd = 'team state start-run';
  const args = parseFlags(argv, STATE_FLAGS['state start-run'], cmd);
  const project = openProject(args);
  const profile = validateId(requireString(args, 'profile', cmd), '--profile');
  const stage = validateId(requireString(args, 'stage', cmd), '--stage');
  const task = validateText(optionalString(args, 'task') ?? '', '--task', LIMITS.task);
  const record = createRun(
    project.dir,
    { profile, stage, status: 'running', ...sessionOf(args), task, workers: 1, agentType: project.config.team.defaultAgentType, mode: 'team' },
    project.write,
  );
  process.stdout.write(`${record.run_id}\n`);
  return 0;
}

function startTask(argv: string[]): number {
  const cmd = 'team state start-task';
  const args = parseFlags(argv, STATE_FLAGS['state start-task'], cmd);
  const project = openProject(args);
  const run = resolveRun(project.dir, validateId(requireString(args, 'run', cmd), '--run'));
  const taskId = validateId(requireString(args, 'task', cmd), '--task');
  const stage = validateId(requireString(args, 'stage', cmd), '--stage');
  const agent = validateId(requireString(args, 'agent', cmd), '--agent');
  const inputs = validateProjectPaths(project.dir, listOf(args, 'input'), '--input');
  const task = loadRunView(run, project.dir).tasks.find((t) => t.id === taskId);
  const latest = task?.attempts.at(-1);
  let attempt = 1;
  if (latest) {
    if (latest.status === 'running') throw new UsageError(`${cmd}: task ${taskId} attempt ${latest.attempt} is still running (one writer per attempt); finish it first`);
    if (latest.status === 'completed') throw new UsageError(`${cmd}: task ${taskId} is already completed (attempt ${latest.attempt})`);
    const retry = task?.retries.find((r) => r.attempt === latest.attempt + 1);
    if (!retry) throw new UsageError(`${cmd}: task ${taskId} attempt ${latest.attempt} ended ${latest.status}; record \`team state retry --run ${run.runId} --task ${taskId} --reason ...\` first`);
    attempt = retry.attempt;
  }
  claimAttempt(run.attemptsDir, taskId, attempt, cmd);
  appendEvent(run, run.runId, { event: 'task_started', task_id: taskId, stage, agent, attempt, status: 'running', ...sessionOf(args), inputs, artifacts: [], evidence: '', next: '' }, project.write);
  process.stdout.write(`${taskId} a${attempt} started\n`);
  return 0;
}

// One writer per attempt: the first to create the attempt's claim file starts it, a racing second is refused.
function claimAttempt(attemptsDir: string, taskId: string, attempt: number, cmd: string): void {
  const dir = join(attemptsDir, taskId, `a${attempt}`);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileAtomic(dir, 'claim.json', `${JSON.stringify({ pid: process.pid, at: new Date().toISOString() })}\n`, { fsync: false, exclusive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new UsageError(`${cmd}: task ${taskId} attempt ${attempt} was started by another writer at the same moment`);
    throw error;
  }
}

function finishTask(argv: string[]): number {
  const cmd = 'team state finish-task';
  const args = parseFlags(argv, STATE_FLAGS['state finish-task'], cmd);
  const project = openProject(args);
  const run = resolveRun(project.dir, validateId(requireString(args, 'run', cmd), '--run'));
  const taskId = validateId(requireString(args, 'task', cmd), '--task');
  const status = requireString(args, 'status', cmd);
  if (!TERMINAL_STATUSES.includes(status)) throw new UsageError(`${cmd}: --status must be one of ${TERMINAL_STATUSES.join(', ')}, not "${status}"`);
  const artifacts = validateProjectPaths(project.dir, listOf(args, 'artifact'), '--artifact');
  const evidence = validateText(optionalString(args, 'evidence') ?? '', '--evidence');
  const next = validateText(optionalString(args, 'next') ?? '', '--next');
  const latest = loadRunView(run, project.dir).tasks.find((t) => t.id === taskId)?.attempts.at(-1);
  if (!latest || latest.status !== 'running') {
    throw new UsageError(`${cmd}: task ${taskId} has no running attempt${latest ? ` (attempt ${latest.attempt} is ${latest.status})` : ''}; start it with \`team state start-task\``);
  }
  appendEvent(
    run,
    run.runId,
    { event: 'task_finished', task_id: taskId, stage: latest.stage, agent: latest.agent, attempt: latest.attempt, status: status as never, ...sessionOf(args), inputs: latest.inputs, artifacts, evidence, next },
    project.write,
  );
  process.stdout.write(`${taskId} a${latest.attempt} ${status}\n`);
  return 0;
}

function retryTask(argv: string[]): number {
  const cmd = 'team state retry';
  const args = parseFlags(argv, STATE_FLAGS['state retry'], cmd);
  const project = openProject(args);
  const run = resolveRun(project.dir, validateId(requireString(args, 'run', cmd), '--run'));
  const taskId = validateId(requireString(args, 'task', cmd), '--task');
  const reason = validateText(requireString(args, 'reason', cmd), '--reason');
  const task = loadRunView(run, project.dir).tasks.find((t) => t.id === taskId);
  const latest = task?.attempts.at(-1);
  if (!task || !latest) throw new UsageError(`${cmd}: task ${taskId} has no attempt to retry`);
  if (latest.status === 'completed') throw new UsageError(`${cmd}: task ${taskId} is completed (attempt ${latest.attempt}); a completed task is never retried`);
  if (latest.status === 'running') throw new UsageError(`${cmd}: task ${taskId} attempt ${latest.attempt} is still running; finish it as failed or interrupted first`);
  if (task.retries.some((r) => r.attempt === latest.attempt + 1)) throw new UsageError(`${cmd}: a retry of task ${taskId} as attempt ${latest.attempt + 1} is already recorded`);
  appendEvent(run, run.runId, { event: 'task_retry', task_id: taskId, attempt: latest.attempt + 1, reason }, project.write);
  process.stdout.write(`${taskId} retry recorded: next attempt ${latest.attempt + 1}\n`);
  return 0;
}


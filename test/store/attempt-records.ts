// Attempt jobs for the queue and worker tests: a task_started record and the job a writer sends
// with it, running a command (a tiny sh script) through the command adapter.
import type { NewEvent } from '../../src/log/schema.js';
import type { AttemptJob } from '../../src/store/pg/attempt-job.js';

// A task_started record of the seed's shape.
export function started(task: string, attempt: number): NewEvent {
  return { event: 'task_started', task_id: task, stage: 'team-exec', agent: 'fixture', attempt, status: 'running', session: '', parent_session: '', inputs: [], artifacts: [], evidence: '', next: '' };
}

// The job of one attempt whose agent is `sh -c <script>`; the script sees TEAM_* as any agent does.
export function shJob(runId: string, task: string, attempt: number, script = 'true', extra: Partial<AttemptJob> = {}): AttemptJob {
  return {
    runId,
    taskId: task,
    attempt,
    worker: 'worker-1',
    stage: 'team-exec',
    role: 'executor',
    agentName: 'fixture',
    agent: { adapter: 'command', command: 'sh', args: ['-c', script], promptVia: 'file' },
    permission: 'run',
    prompt: `do ${task}\n`,
    env: { TEAM_RUN_ID: runId, TEAM_TASK_ID: task, TEAM_ATTEMPT: String(attempt), TEAM_STAGE: 'team-exec', TEAM_ROLE: 'executor', TEAM_WORKER: 'worker-1', TEAM_PERMISSION: 'run' },
    ...extra,
  };
}

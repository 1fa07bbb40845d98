// The attempt folder and environment of one bench-agent attempt, as SPEC's agent protocol gives them:
// shared by the baselines of the pipeline benchmark (bench/parts/plain.ts, bench/parts/plain-job-main.ts).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface AgentAttempt {
  env: Record<string, string>;
  resultFile: string;
}

// Makes the attempt's folder under `dir` and returns its environment and result file.
export function agentAttempt(dir: string, id: string, stage: string, role: string, worker: string, tasks: number): AgentAttempt {
  const attemptDir = join(dir, id, 'a1');
  mkdirSync(attemptDir, { recursive: true });
  const resultFile = join(attemptDir, 'result.json');
  const env = {
    TEAM_RUN_ID: 'plain',
    TEAM_TASK_ID: id,
    TEAM_ATTEMPT: '1',
    TEAM_STAGE: stage,
    TEAM_ROLE: role,
    TEAM_WORKER: worker,
    TEAM_PROMPT_FILE: join(attemptDir, 'prompt.md'),
    TEAM_RESULT_FILE: resultFile,
    TEAM_PROJECT_DIR: dir,
    BENCH_TASKS: String(tasks),
  };
  return { env, resultFile };
}

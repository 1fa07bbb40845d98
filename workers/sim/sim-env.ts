// Reads the agent protocol's TEAM_* environment (SPEC section 4) plus the sim's own variables.
import { join, resolve } from 'node:path';
import { STAGES, type Stage } from '../types.js';

export interface SimEnv {
  runId: string;
  taskId: string;
  attempt: number;
  stage: Stage;
  role: string;
  worker: string;
  promptFile: string | undefined;
  resultFile: string;
  projectDir: string;
  scenarioFile: string | undefined;
  ledgerFile: string;
}

// Why the sim cannot start; it exits 2 with this message and writes no result.
export class SimEnvError extends Error {
  override name = 'SimEnvError';
}

// Builds the attempt's identity from the environment; missing or bad values throw SimEnvError.
export function readSimEnv(env: NodeJS.ProcessEnv, cwd: string): SimEnv {
  const stage = requireVar(env, 'TEAM_STAGE');
  if (!(STAGES as readonly string[]).includes(stage)) {
    throw new SimEnvError(`TEAM_STAGE must be one of ${STAGES.join(', ')}; got "${stage}"`);
  }
  const attempt = Number(requireVar(env, 'TEAM_ATTEMPT'));
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new SimEnvError(`TEAM_ATTEMPT must be a whole number >= 1; got "${env.TEAM_ATTEMPT}"`);
  }
  const projectDir = resolve(cwd, env.TEAM_PROJECT_DIR || '.');
  return {
    runId: env.TEAM_RUN_ID || 'run',
    taskId: requireVar(env, 'TEAM_TASK_ID'),
    attempt,
    stage: stage as Stage,
    role: env.TEAM_ROLE || 'executor',
    worker: env.TEAM_WORKER || 'worker-1',
    promptFile: env.TEAM_PROMPT_FILE || undefined,
    resultFile: resolve(cwd, requireVar(env, 'TEAM_RESULT_FILE')),
    projectDir,
    scenarioFile: env.TEAM_SIM_SCENARIO ? resolve(cwd, env.TEAM_SIM_SCENARIO) : undefined,
    ledgerFile: env.TEAM_SIM_LEDGER ? resolve(cwd, env.TEAM_SIM_LEDGER) : join(projectDir, '.team', 'sim-ledger.jsonl'),
  };
}

function requireVar(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new SimEnvError(`${name} is not set; the sim agent is started by the runtime`);
  return value;
}

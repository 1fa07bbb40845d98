// The sim agent: a deterministic stand-in for a model-backed agent, driven by a scenario file,
// for the README demo and end-to-end tests on machines with no model access. See SCENARIO.md.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { hangForever, ignoreSignals, makeLinks, printLines, spawnChildren, startHeartbeat, toHeartbeatFile, writeTaskFiles } from './behaviours.js';
import { appendLedger, countEarlierReviews } from './ledger.js';
import { commitOwnWork, editLines, runShell } from './git-work.js';
import { printFencedResult, toResultText, writeResultFile } from './output.js';
import { makeResult, type SimResult } from './results.js';
import { resolveBehaviour } from './rules.js';
import { loadScenario, ScenarioError, type Behaviour, type Scenario } from './scenario.js';
import { readSimEnv, SimEnvError, type SimEnv } from './sim-env.js';
import { parseTaskId, type TaskIdParts } from './task-id.js';
import { USAGE_PREFIX } from './usage.js';

// Exit code when the sim is started wrongly (env or scenario): the usage-error code of the CLI.
const EXIT_BAD_SETUP = 2;

interface Attempt {
  env: SimEnv;
  scenario: Scenario;
  task: TaskIdParts;
  behaviour: Behaviour;
}

async function runSim(): Promise<number> {
  const attempt = readAttempt();
  if (typeof attempt === 'number') return attempt;
  const { env, task, behaviour } = attempt;
  prepareProcess(attempt);
  console.log(`sim: ${env.stage} ${task.id} attempt ${env.attempt} started by ${env.worker} (pid ${process.pid})`);
  const promptLine = readPromptLine(env.promptFile);
  if (promptLine === undefined) {
    const summary = `sim: cannot read the prompt file ${env.promptFile ?? '(TEAM_PROMPT_FILE not set)'}`;
    deliverResult(env, behaviour, { status: 'failed', summary, artifacts: [], evidence: 'no prompt', next: 'check the runtime' });
    return 0;
  }
  // The MCP client is loaded only by an attempt that calls the tools: every other sim starts as fast as before.
  if (behaviour.tools && (await (await import('./tools.js')).callTools(env, behaviour.tools))) return 0;
  if (behaviour.usage && behaviour.usageEarly) printUsage(behaviour.usage);
  await sleep(behaviour.sleepMs ?? 0);
  if (behaviour.hang) await hangForever();
  await printLines(behaviour.printLines ?? 0, task.id);
  return finishWork(attempt, promptLine);
}

// The work proper, once the sleep is over: files, the ledger line, then the result (or an exit code).
function finishWork(attempt: Attempt, promptLine: string): number {
  const { env, task, behaviour, scenario } = attempt;
  const earlierReviews = countEarlierReviews(env.ledgerFile, env.runId, task.id);
  const artifacts = [...writeTaskFiles(env, task, behaviour), ...editLines(env, behaviour), ...makeLinks(env, behaviour)];
  commitOwnWork(env, behaviour);
  runShell(env, behaviour);
  appendLedger(env.ledgerFile, {
    run: env.runId,
    task: task.id,
    attempt: env.attempt,
    stage: env.stage,
    role: env.role,
    worker: env.worker,
    pid: process.pid,
    at: new Date().toISOString(),
  });
  if (behaviour.usage) printUsage(behaviour.usage);
  if (behaviour.exitCode !== undefined) {
    console.error(`sim: the scenario exits ${behaviour.exitCode} without a result`);
    return behaviour.exitCode;
  }
  deliverResult(env, behaviour, makeResult({ env, task, scenario, behaviour, promptLine, artifacts, earlierReviews }));
  return 0;
}

// Reads env and scenario; on a setup error prints why and returns the exit code instead.
function readAttempt(): Attempt | number {
  try {
    const env = readSimEnv(process.env, process.cwd());
    const scenario = loadScenario(env.scenarioFile);
    const task = parseTaskId(env.taskId);
    const behaviour = resolveBehaviour(scenario, { stage: env.stage, task, attempt: env.attempt });
    return { env, scenario, task, behaviour };
  } catch (error) {
    if (!(error instanceof SimEnvError || error instanceof ScenarioError)) throw error;
    console.error(`sim: ${error.message}`);
    return EXIT_BAD_SETUP;
  }
}

// Signal handlers, heartbeat and children come first, so a test can rely on them once the start line shows.
function prepareProcess({ env, behaviour }: Attempt): void {
  if (behaviour.ignoreSignals) ignoreSignals();
  if (behaviour.heartbeatMs !== undefined) startHeartbeat(toHeartbeatFile(env, behaviour), behaviour.heartbeatMs);
  for (const pid of spawnChildren(behaviour.children ?? 0, behaviour.childSleepMs)) console.log(`sim: child pid ${pid}`);
}

function readPromptLine(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8').split('\n')[0]?.trim() ?? '';
  } catch {
    return undefined;
  }
}

// The spend the scenario gives the attempt, in the line the sim adapter reads (workers/sim/usage.ts).
function printUsage(usage: NonNullable<Behaviour['usage']>): void {
  console.log(`${USAGE_PREFIX}${JSON.stringify({ ...(usage.costUsd !== undefined && { cost_usd: usage.costUsd }), ...(usage.tokens && { tokens: usage.tokens }) })}`);
}

function deliverResult(env: SimEnv, behaviour: Behaviour, result: SimResult): void {
  const text = toResultText(result, behaviour);
  if (behaviour.resultVia === 'stdout') printFencedResult(text);
  else writeResultFile(env.resultFile, text);
}

runSim().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error('sim: internal error:', error);
    process.exitCode = 1;
  },
);

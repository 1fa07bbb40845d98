// Test helpers: build the sim once if needed, make a temporary project, run the real compiled sim agent.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type Options } from 'execa';
import { afterEach } from 'vitest';

export const ROOT = resolve(fileURLToPath(import.meta.url), '../../../..');
export const SIM_AGENT = join(ROOT, 'dist/workers/sim/sim-agent.js');
export const SCENARIOS = join(ROOT, 'test/fixtures/scenarios');
const SOURCE_DIR = join(ROOT, 'workers/sim');

// The bundle the sim agent's loader runs (dist/cli/sim.cjs, made by the build's bundle step).
const SIM_BUNDLE = join(ROOT, 'dist/cli/sim.cjs');

// `npm test` builds first; a bare `vitest run` rebuilds (tsc and the bundles) only when the loader is
// missing or the bundle is missing or older than the source (tsc's incremental build leaves an
// unchanged loader's file as it was; the bundle step writes the bundle each time).
export async function ensureSimBuilt(): Promise<void> {
  const newestSource = Math.max(...readdirSync(SOURCE_DIR).map((name) => statSync(join(SOURCE_DIR, name)).mtimeMs));
  const built = () => existsSync(SIM_AGENT) && existsSync(SIM_BUNDLE) && statSync(SIM_BUNDLE).mtimeMs >= newestSource;
  if (built()) return;
  await execa('npm', ['run', 'build'], { cwd: ROOT, reject: false });
  if (!built()) throw new Error(`npm run build did not make ${SIM_AGENT} and ${SIM_BUNDLE} from the current source`);
}

export interface SimAttempt {
  stage: string;
  task: string;
  attempt?: number;
  run?: string;
  worker?: string;
}

export interface SimFolder {
  dir: string;
  ledger: string;
  scenario: string | undefined;
  resultFile(task: string, attempt?: number): string;
  readResult(task: string, attempt?: number): Record<string, unknown>;
  readLedger(): Array<Record<string, unknown>>;
  remove(): void;
}

// The sim agent's own folder (not a team project: test/helpers/sim-project.ts makes those): a prompt file, and the scenario (an object, a fixture name or none) written into it.
export function makeSimFolder(scenario?: object | string): SimFolder {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-sim-'));
  mkdirSync(join(dir, 'attempts'), { recursive: true });
  writeFileSync(join(dir, 'prompt.md'), 'Add input validation to the API\nmore lines\n');
  let scenarioFile: string | undefined;
  if (typeof scenario === 'string') scenarioFile = join(SCENARIOS, scenario);
  else if (scenario) writeFileSync((scenarioFile = join(dir, 'scenario.json')), JSON.stringify(scenario));
  const ledger = join(dir, '.team', 'sim-ledger.jsonl');
  const resultFile = (task: string, attempt = 1) => join(dir, 'attempts', task, `a${attempt}`, 'result.json');
  return {
    dir,
    ledger,
    scenario: scenarioFile,
    resultFile,
    readResult: (task, attempt) => JSON.parse(readFileSync(resultFile(task, attempt), 'utf8')),
    readLedger: () =>
      existsSync(ledger)
        ? readFileSync(ledger, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line))
        : [],
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

// Inside a describe: a project maker whose projects are removed after each test.
export function useSimFolders(): (scenario?: object | string) => SimFolder {
  const made: SimFolder[] = [];
  afterEach(() => made.splice(0).forEach((project) => project.remove()));
  return (scenario) => {
    const project = makeSimFolder(scenario);
    made.push(project);
    return project;
  };
}

// The agent protocol's environment for one attempt in the project.
export function makeSimEnv(project: SimFolder, attempt: SimAttempt): Record<string, string> {
  const env: Record<string, string> = {
    TEAM_RUN_ID: attempt.run ?? 'run-1',
    TEAM_TASK_ID: attempt.task,
    TEAM_ATTEMPT: String(attempt.attempt ?? 1),
    TEAM_STAGE: attempt.stage,
    TEAM_ROLE: 'executor',
    TEAM_WORKER: attempt.worker ?? 'worker-1',
    TEAM_PROMPT_FILE: join(project.dir, 'prompt.md'),
    TEAM_RESULT_FILE: project.resultFile(attempt.task, attempt.attempt),
    TEAM_PROJECT_DIR: project.dir,
  };
  if (project.scenario) env.TEAM_SIM_SCENARIO = project.scenario;
  return env;
}

// Runs the real sim for one attempt and resolves with its result (never rejects on a non-zero exit).
export function runSim(project: SimFolder, attempt: SimAttempt, options: Options = {}) {
  return execa(process.execPath, [SIM_AGENT], {
    cwd: project.dir,
    reject: false,
    ...options,
    env: { ...makeSimEnv(project, attempt), ...options.env },
  });
}

// Helpers of the team tools' tests: a run started in the background, and looks at its log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { readRunFiles } from '../../src/log/read.js';
import { resolveRun } from '../../src/log/write.js';
import type { TeamEvent } from '../../src/log/schema.js';
import { GIT_ENV, type GitProject } from '../helpers/git-project.js';
import { CLI } from '../helpers/team.js';

// `team <args>` in the project, not awaited: the orchestrator of a run the test talks to.
export function startTeam(project: GitProject, ...args: string[]): ResultPromise {
  return execa('node', [CLI, ...args], { cwd: project.dir, env: { ...GIT_ENV, TEAM_SIM_LEDGER: project.ledgerFile }, reject: false, stdin: 'ignore' });
}

// The latest run's valid events (none before it exists).
export function eventsNow(project: GitProject): Array<TeamEvent & { file: string }> {
  try {
    return readRunFiles(resolveRun(project.dir, undefined)).events;
  } catch {
    return [];
  }
}

// An attempt's file of the latest run.
export function attemptFile(project: GitProject, task: string, attempt: number, name: string): string {
  return readFileSync(attemptPath(project, task, attempt, name), 'utf8');
}

// The path of a file (or folder) in an attempt's folder.
export function attemptPath(project: GitProject, task: string, attempt: number, name: string): string {
  return join(resolveRun(project.dir, undefined).runDir, 'attempts', task, `a${attempt}`, name);
}

// The answers the sim printed for its calls of `tool`, parsed.
export function answersOf(output: string, tool: string): Array<Record<string, unknown>> {
  return output.split('\n').flatMap((line) => {
    const m = /^sim: tool (\w+)(?: \(error\))? (.*)$/.exec(line);
    return m && m[1] === tool ? [JSON.parse(m[2]!) as Record<string, unknown>] : [];
  });
}

// A fresh temporary project for a test, with shortcuts to run `team` in it and look at its run folders.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { toJson } from '../../src/commands/follow/status.js';
import { runTeam, type TeamResult } from './team.js';

// The document `team status --json` prints for a project with a run.
export type StatusJson = ReturnType<typeof toJson>;

export interface TestProject {
  dir: string;
  /** `team <args>` run in the project folder. */
  team(...args: string[]): Promise<TeamResult>;
  /** `team state start-run`; fails the test unless it exits 0; returns the run id. */
  startRun(): Promise<string>;
  /** `team status --json`; fails the test unless it exits 0. */
  statusJson(...args: string[]): Promise<StatusJson>;
  runDir(runId: string): string;
  eventsDir(runId: string): string;
  /** Event file names of a run, sorted. */
  listEvents(runId: string): string[];
  /** Writes a file at a path relative to the project, making its folders. */
  write(relative: string, text: string): string;
}

const made: string[] = [];

// A new empty project folder; removed by `removeProjects`.
export function makeProject(): TestProject {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-test-'));
  made.push(dir);
  const team = (...args: string[]) => runTeam(args, { cwd: dir });
  const runDir = (runId: string) => join(dir, '.team', 'runs', runId);
  return {
    dir,
    team,
    async startRun() {
      const result = await team('state', 'start-run', '--profile', 'test', '--stage', 'team-exec');
      if (result.exitCode !== 0) throw new Error(`start-run exited ${result.exitCode}: ${result.stderr}`);
      return result.stdout.trim();
    },
    async statusJson(...args: string[]) {
      const result = await team('status', '--json', ...args);
      if (result.exitCode !== 0) throw new Error(`status --json exited ${result.exitCode}: ${result.stderr}`);
      return JSON.parse(result.stdout) as StatusJson;
    },
    runDir,
    eventsDir: (runId) => join(runDir(runId), 'events'),
    listEvents: (runId) => readdirSync(join(runDir(runId), 'events')).sort(),
    write(relative, text) {
      const path = join(dir, relative);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      return path;
    },
  };
}

// Removes every project made so far; call it in afterEach.
export function removeProjects(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

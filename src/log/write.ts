// The run store: creates runs and appends events and approvals, each file written once.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../sys/errors.js';
import { writeFileAtomic } from '../sys/atomic.js';
import type { Approval, NewEvent, TeamEvent } from './schema.js';
import { ID_PATTERN } from './guards.js';
import type { LogDigest } from './digest.js';
import { makeRunId, makeStamp, makeToken, nowIso } from './time.js';
import { keepTeamOutOfGit } from '../git/team-exclude.js';
import { quoteShort } from '../sys/terminal-text.js';
import { currentFile, readCurrentId } from './current-run.js';

export interface RunPaths {
  projectDir: string;
  runDir: string;
  runJson: string;
  eventsDir: string;
  approvalsDir: string;
  handoffsDir: string;
  attemptsDir: string;
  logFile: string;
}

// run.json, written once; stage and status in it are where the run began.
export interface RunRecord {
  run_id: string;
  created_at: string;
  profile: string;
  stage: string;
  status: string;
  session: string;
  parent_session: string;
  // teamline's additions (the invocation): optional on read, since a run the seed's helper or another
  // tool wrote by hand has only the fields above.
  task?: string;
  workers?: number;
  agentType?: string;
  mode?: 'team' | 'ralph';
}

export interface WriteOptions {
  fsync: boolean;
}

// `<project>/.team/runs`.
export function runsDir(projectDir: string): string {
  return join(projectDir, '.team', 'runs');
}

// Every path of one run.
export function runPaths(projectDir: string, runId: string): RunPaths {
  return runPathsIn(join(runsDir(projectDir), runId), projectDir);
}

// The files of a run folder at `runDir`, wherever it is.
export function runPathsIn(runDir: string, projectDir: string): RunPaths {
  return {
    projectDir,
    runDir,
    runJson: join(runDir, 'run.json'),
    eventsDir: join(runDir, 'events'),
    approvalsDir: join(runDir, 'approvals'),
    handoffsDir: join(runDir, 'handoffs'),
    attemptsDir: join(runDir, 'attempts'),
    logFile: join(runDir, 'log.jsonl'),
  };
}

// Creates the run's folders and run.json (with `runId`, else a new id), then points `current` at it.
export function createRun(projectDir: string, fields: Omit<RunRecord, 'run_id' | 'created_at'>, options: WriteOptions, runId: string = makeRunId()): RunRecord {
  const record: RunRecord = { run_id: runId, created_at: nowIso(), ...fields };
  const paths = runPaths(projectDir, record.run_id);
  makeRunFolders(projectDir, paths);
  writeFileAtomic(paths.runDir, 'run.json', `${JSON.stringify(record, null, 2)}\n`, { ...options, exclusive: true });
  writeFileAtomic(runsDir(projectDir), 'current', `${record.run_id}\n`, options);
  return record;
}

// Makes the run's folders one level at a time (a recursive mkdir spins forever where mkdir answers
// ENOENT in a folder that exists, as in /proc); a project that cannot be written is the user's --cwd.
function makeRunFolders(projectDir: string, paths: RunPaths): void {
  keepTeamOutOfGit(projectDir);
  const levels = [join(projectDir, '.team'), runsDir(projectDir), paths.runDir, paths.eventsDir, paths.approvalsDir, paths.handoffsDir, paths.attemptsDir];
  for (const dir of levels) {
    try {
      mkdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new UsageError(`--cwd: cannot create the run folder in ${projectDir}: ${(error as Error).message}`);
    }
  }
}

// Appends one event; the file name sorts in the order written. `syncDir: false` leaves the folder
// fsync to the caller.
// `digest`, when given, has the file added once it is written.
export function appendEvent<E extends NewEvent>(paths: RunPaths, runId: string, event: E, options: WriteOptions & { syncDir?: boolean; digest?: LogDigest }): E & { at: string; run_id: string } {
  const { full, name, text } = makeEventFile(runId, event);
  writeFileAtomic(paths.eventsDir, name, text, options);
  options.digest?.add(name, text);
  return full;
}

// An event as the log holds it (its time and run stamped), its file name and its text.
export function makeEventFile<E extends NewEvent>(runId: string, event: E): { full: E & { at: string; run_id: string }; name: string; text: string } {
  const full = { ...event, at: nowIso(), run_id: runId } as E & { at: string; run_id: string };
  return { full, name: eventFileName(full), text: `${JSON.stringify(full)}\n` };
}

// An event's name, `<stamp>-<event>-<task>-a<attempt>-<token>.json`: it sorts in the order written.
export function eventFileName(event: NewEvent): string {
  const record = event as unknown as Record<string, unknown>;
  const task = typeof record.task_id === 'string' ? record.task_id : 'run';
  const attempt = typeof record.attempt === 'number' ? record.attempt : 0;
  return `${makeStamp()}-${event.event}-${task}-a${attempt}-${makeToken()}.json`;
}

// Appends one approval record.
export function appendApproval(paths: RunPaths, approval: Approval, options: WriteOptions): void {
  writeFileAtomic(paths.approvalsDir, approvalFileName(approval), `${JSON.stringify(approval)}\n`, options);
}

// An approval's name, `<stamp>-<stage>-<token>.json`.
export function approvalFileName(approval: Approval): string {
  return `${makeStamp()}-${approval.stage}-${makeToken()}.json`;
}

// The latest run id, or undefined when the project has none; a damaged `current` is a usage error naming it.
// With no `current` (a run written by hand or by the seed's helper may have none), the newest run
// folder holding a run.json: a run id begins with its start time, so the names sort by age.
export function readCurrentRunId(projectDir: string): string | undefined {
  const dir = runsDir(projectDir);
  return readCurrentId(dir) ?? newestRunId(dir);
}

function newestRunId(dir: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  return names
    .filter((name) => ID_PATTERN.test(name) && existsSync(join(dir, name, 'run.json')))
    .sort()
    .at(-1);
}

// The run a command means: `--run ID`, else the latest; an unknown run is a usage error naming
// where the id came from (`--run`, or the `current` file).
export function resolveRun(projectDir: string, runId: string | undefined): RunPaths & { runId: string } {
  const id = runId ?? readCurrentRunId(projectDir);
  const source = runId === undefined ? currentFile(runsDir(projectDir)) : '--run';
  if (!id) throw new UsageError(`no run in ${projectDir}: .team/runs has none (start one with \`team "task"\` or \`team state start-run\`)`);
  if (!ID_PATTERN.test(id)) throw new UsageError(`--run: ${quoteShort(id)} is not a valid run id`);
  const paths = runPaths(projectDir, id);
  if (!existsSync(paths.runJson)) throw new UsageError(`${source}: no run ${id} in ${runsDir(projectDir)}`);
  return { ...paths, runId: id };
}

export type { TeamEvent };

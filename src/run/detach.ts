// `--detach`: the orchestrator runs in a session of its own, its output in the run folder; this
// process returns as soon as the child drives the run (holds its lock), with the run id.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { EXIT, UsageError } from '../sys/errors.js';
import type { RunStore } from '../store/types.js';
import { namespaceEndsWithCommand } from '../sys/pid-namespace.js';
import { assertRunsWritable } from './writable.js';
import { detachAdvice } from './detach-advice.js';
import { keepTeamOutOfGit } from '../git/team-exclude.js';
import { terminalText } from '../sys/terminal-text.js';
import { TEAM_BIN } from '../sys/team-bin.js';

// The child learns the id of the run it creates from this variable (and removes it from its env).
export const DETACHED_RUN_VAR = 'TEAM_DETACHED_RUN';
// The detached orchestrator's stdout and stderr, in its run folder.
export const ORCHESTRATOR_LOG = 'orchestrator.log';
// How often the starter looks whether the child holds the lock yet.
const POLL_MS = 25;
// A child that neither takes the lock nor exits in this time is left to itself: the id is known.
const START_LIMIT_MS = 60_000;

export interface DetachRequest {
  /** The child's arguments: the command line without --detach. */
  argv: string[];
  /** The run's store: the child drives the run once it holds the run's writer lock there. */
  store: RunStore;
  runId: string;
  /** A new run: the child creates it with this id; its folder is removed if the child never does. */
  creates: boolean;
  json: boolean;
}

// Starts the detached orchestrator and reports how to follow it; returns this command's exit code.
export async function detachRun(request: DetachRequest): Promise<number> {
  const { store, runId } = request;
  const paths = store.paths(runId);
  const ends = namespaceEndsWithCommand();
  if (ends !== undefined) throw new UsageError(`--detach: ${ends}; ${detachAdvice(paths.projectDir)}`);
  assertRunsWritable(paths.projectDir, dirname(paths.runDir));
  keepTeamOutOfGit(paths.projectDir);
  mkdirSync(paths.runDir, { recursive: true });
  const logFile = join(paths.runDir, ORCHESTRATOR_LOG);
  const fd = openSync(logFile, 'a');
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (request.creates) env[DETACHED_RUN_VAR] = runId;
  // node's spawn, not execa: the child's stdio is a file descriptor of ours and nothing is piped
  // back (execa's types admit only fds 3–9 there), and this process must not wait for it.
  const child = spawn(process.execPath, [TEAM_BIN, ...request.argv], { detached: true, stdio: ['ignore', fd, fd], env });
  closeSync(fd);
  let gone = false;
  const ended = once(child, 'exit').then(([code]) => ((gone = true), typeof code === 'number' ? code : EXIT.failed));
  const exited = await Promise.race([ended, untilDriven(store, runId, child.pid, () => gone)]);
  child.unref();
  const made = await store.hasRun(runId);
  if (exited !== undefined && (exited === EXIT.usage || (request.creates && !made))) {
    process.stderr.write(terminalText(readFileSync(logFile, 'utf8')));
    if (request.creates && !made) rmSync(paths.runDir, { recursive: true, force: true });
    return exited;
  }
  const follow: string[] = [`team wait --run ${runId}`, `team status --run ${runId}`, `team cancel --run ${runId}`];
  if (request.json) process.stdout.write(`${JSON.stringify({ type: 'run.detached', run: runId, pid: child.pid, log: logFile, follow })}\n`);
  else {
    process.stdout.write(
      [
        `teamline run ${runId} runs detached (orchestrator pid ${child.pid}); its output goes to ${logFile}`,
        `  ${follow[0]}    blocks until it ends and exits with its code (see --timeout)`,
        `  ${follow[1]}  where it stands`,
        `  ${follow[2]}  stops it`,
        '',
      ].join('\n'),
    );
  }
  return EXIT.completed;
}

// Resolves (undefined) once the child drives the run, has exited, or after START_LIMIT_MS.
async function untilDriven(store: RunStore, runId: string, pid: number | undefined, exited: () => boolean): Promise<undefined> {
  const deadline = Date.now() + START_LIMIT_MS;
  while (!exited() && !(await store.hasWriter(runId, pid).catch(() => false)) && Date.now() < deadline) await sleep(POLL_MS);
  return undefined;
}

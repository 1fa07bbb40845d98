// Test helper: a fresh fake run with its own -L name and TMUX_TMPDIR, and fixture agent commands.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readProcStat } from '../../../src/sys/proc.js';
import { killServer } from '../../../workers/tmux/server.js';
import { resolveTarget, toServerName, toSocketPath, type TmuxOptions } from '../../../workers/tmux/tmux-run.js';
import type { AgentCommand, LaunchSpec } from '../../../workers/types.js';

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/agents');

export interface TestRun {
  runId: string;
  root: string;
  options: TmuxOptions;
  socketPath: string;
  /** A launch spec for one attempt, its folder created under the run's root. */
  makeSpec(taskId: string, command: AgentCommand, attempt?: number, worker?: string): Promise<LaunchSpec>;
  /** Kills the run's server, checks its socket is gone, removes the folders. */
  cleanup(): Promise<{ socketLeft: boolean }>;
}

// A run id shaped like the runtime's: <YYYYMMDD>T<HHMMSS><micro>Z-<6 hex>.
export function makeRunId(): string {
  const iso = new Date().toISOString().replace(/[-:]/g, '');
  const time = `${iso.slice(0, 15)}${iso.slice(16, 19)}${randomBytes(2).readUInt16BE() % 1000}`.padEnd(21, '0');
  return `${time}Z-${randomBytes(3).toString('hex')}`;
}

// A node fixture agent as an agent command.
export function toNodeCommand(fixture: string, args: string[] = [], extra: Partial<AgentCommand> = {}): AgentCommand {
  return { file: process.execPath, args: [join(FIXTURES, fixture), ...args], ...extra };
}

// True while a process runs (a zombie waiting for its reaper does not).
export function isRunning(pid: number): boolean {
  const state = readProcStat(pid)?.state;
  return state !== undefined && state !== 'Z' && state !== 'X';
}

// Starts nothing: only names a run and makes its folders (socket dir and attempt root).
export async function makeTestRun(): Promise<TestRun> {
  const runId = makeRunId();
  const socketDir = await mkdtemp(join(tmpdir(), 'tmux-t-'));
  const root = await mkdtemp(join(tmpdir(), 'tmux-run-'));
  const options: TmuxOptions = { socketDir, env: { ...process.env } };
  const socketPath = toSocketPath(resolveTarget(toServerName(runId), options));
  return {
    runId,
    root,
    options,
    socketPath,
    async makeSpec(taskId, command, attempt = 1, worker = 'worker-1') {
      const attemptDir = join(root, 'attempts', taskId, `a${attempt}`);
      await mkdir(attemptDir, { recursive: true });
      const env = {
        TEAM_RUN_ID: runId,
        TEAM_TASK_ID: taskId,
        TEAM_ATTEMPT: String(attempt),
        TEAM_WORKER: worker,
        TEAM_RESULT_FILE: join(attemptDir, 'result.json'),
        TEAM_PROMPT_FILE: join(attemptDir, 'prompt.md'),
        TEAM_PROJECT_DIR: root,
      };
      return { runId, taskId, attempt, worker, attemptDir, cwd: root, command, env };
    },
    async cleanup() {
      await killServer(runId, options);
      const socketLeft = existsSync(socketPath);
      await rm(socketDir, { recursive: true, force: true });
      await rm(root, { recursive: true, force: true });
      return { socketLeft };
    },
  };
}

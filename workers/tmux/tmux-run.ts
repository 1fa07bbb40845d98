// Runs tmux against one run's private server: always -L, the run's TMUX_TMPDIR, never the user's TMUX.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { runProgram, withoutFinalNewline } from '../../src/sys/run-program.js';

// tmux's own default when TMUX_TMPDIR is unset (_PATH_TMP).
const DEFAULT_SOCKET_DIR = '/tmp';

// Session holding every window of a run; `team attach` lands here.
export const SESSION = 'team';

// How the runtime (or a test) points the backend at its tmux.
export interface TmuxOptions {
  /** TMUX_TMPDIR of the run's server; default: TMUX_TMPDIR of `env`, else /tmp. */
  socketDir?: string;
  /** Environment for tmux and so for the server and its panes; default process.env. TMUX is always dropped. */
  env?: NodeJS.ProcessEnv;
  /** The tmux executable; default `tmux` on PATH. */
  tmuxPath?: string;
}

// One run's server, fully resolved.
export interface TmuxTarget {
  server: string;
  socketDir: string;
  env: NodeJS.ProcessEnv;
  tmuxPath: string;
}

export interface TmuxResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

// The -L name of a run's server.
export function toServerName(runId: string): string {
  return `team-${runId}`;
}

// Resolves the options for one server name (from a run id or from a recorded handle).
export function resolveTarget(server: string, options: TmuxOptions = {}): TmuxTarget {
  const env = options.env ?? process.env;
  const socketDir = options.socketDir ?? env.TMUX_TMPDIR ?? DEFAULT_SOCKET_DIR;
  return { server, socketDir, env, tmuxPath: options.tmuxPath ?? 'tmux' };
}

// Where tmux puts the socket for -L: <realpath of TMUX_TMPDIR>/tmux-<uid>/<name>.
export function toSocketPath(target: TmuxTarget): string {
  let dir = target.socketDir;
  try {
    dir = realpathSync(dir);
  } catch {
    // A missing folder has no socket in it either; keep the path as given.
  }
  return join(dir, `tmux-${process.getuid?.() ?? 0}`, target.server);
}

// The environment tmux runs with: the caller's, the run's TMUX_TMPDIR, and no TMUX of an outer tmux.
export function toTmuxEnv(target: TmuxTarget): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...target.env, TMUX_TMPDIR: target.socketDir };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

// `-u`: without a UTF-8 locale (no LANG, as in a bare agent shell) tmux turns the tabs of a
// -F format into `_`, and the fields of its answers could not be told apart.
const CLIENT = ['-u'];

// Runs one tmux command; a failing tmux is a result (ok false), not a throw.
export async function runTmux(target: TmuxTarget, args: string[]): Promise<TmuxResult> {
  const result = await runProgram(target.tmuxPath, [...CLIENT, '-L', target.server, ...args], { env: toTmuxEnv(target) });
  return { ok: result.code === 0, stdout: withoutFinalNewline(result.stdout), stderr: withoutFinalNewline(result.stderr) };
}

// A long-lived tmux client (e.g. wait-for): `ended` settles when it exits (or could not start);
// the caller ends it with `kill`. Node's own spawn: nothing of its output is read.
export interface TmuxClient {
  ended: Promise<void>;
  kill(): void;
}

export function spawnTmux(target: TmuxTarget, args: string[]): TmuxClient {
  const child = spawn(target.tmuxPath, [...CLIENT, '-L', target.server, ...args], { env: toTmuxEnv(target), stdio: 'ignore' });
  const ended = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  return { ended, kill: () => void child.kill() };
}

// A fresh TMUX_TMPDIR for a whole test, with a tmux session "of the user's" beside the runs' servers,
// so a test sees whether cleanup touched anything it does not own. Never the real user's tmux.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

export interface TmuxSandbox {
  /** The TMUX_TMPDIR every process of the test gets. */
  dir: string;
  /** Environment for the processes of the test: TMUX_TMPDIR set, no outer TMUX. */
  env: Record<string, string>;
  /** The -L name of the user's own server. */
  userServer: string;
  /** `tmux -L <server> <args>` in the sandbox; never throws. */
  tmux(server: string, ...args: string[]): Promise<{ ok: boolean; stdout: string }>;
  /** Starts the user's session (`sleep 600` in it); returns the pid of its pane. */
  startUserSession(): Promise<number>;
  /** The socket file of a server of the sandbox. */
  socketPath(server: string): string;
  /** Kills every server left in the sandbox (the user's too) and removes the folder. */
  cleanup(): Promise<void>;
}

// The -L name of a run's private server, as the runtime names it.
export function runServerName(runId: string): string {
  return `team-${runId}`;
}

// Makes the folder; starts nothing.
export function makeTmuxSandbox(): TmuxSandbox {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-tmux-'));
  const env: Record<string, string> = { ...stringEnv(process.env), TMUX_TMPDIR: dir };
  delete env.TMUX;
  delete env.TMUX_PANE;
  const userServer = `user-${randomBytes(4).toString('hex')}`;
  const socketDir = () => join(realpathSync(dir), `tmux-${process.getuid?.() ?? 0}`);
  const tmux = async (server: string, ...args: string[]) => {
    const result = await execa('tmux', ['-L', server, ...args], { env, extendEnv: false, reject: false, stdin: 'ignore' });
    return { ok: result.exitCode === 0, stdout: String(result.stdout) };
  };
  return {
    dir,
    env,
    userServer,
    tmux,
    async startUserSession() {
      const started = await tmux(userServer, 'new-session', '-d', '-s', 'mine', 'sleep', '600');
      if (!started.ok) throw new Error(`could not start the user's tmux session ${userServer}`);
      const pane = await tmux(userServer, 'list-panes', '-a', '-F', '#{pane_pid}');
      return Number(pane.stdout.trim().split('\n')[0]);
    },
    socketPath: (server) => join(socketDir(), server),
    async cleanup() {
      const sockets = existsSync(socketDir()) ? readdirSync(socketDir()) : [];
      for (const server of sockets) await tmux(server, 'kill-server');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function stringEnv(source: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) if (value !== undefined) out[key] = value;
  return out;
}

// For end-to-end tmux runs: a fresh TMUX_TMPDIR per test, the run's private server as the CLI
// names it, and what a run may leave behind (server, socket file, processes).
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

export interface TmuxResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface Leftovers {
  /** `tmux -L team-<run> list-sessions` succeeded. */
  server: boolean;
  /** The socket file of the run's server exists. */
  socket: boolean;
  /** Live processes started for the run: agents (TEAM_RUN_ID in their environment) or its tmux server. */
  processes: Array<{ pid: number; cmdline: string }>;
}

const socketDirs: string[] = [];

// A new empty TMUX_TMPDIR; `removeSocketDirs` kills what runs in it and removes it.
export function makeSocketDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-tmux-'));
  socketDirs.push(dir);
  return dir;
}

// The -L name the runtime gives a run's server.
export function serverOf(runId: string): string {
  return `team-${runId}`;
}

// Where tmux puts the socket of `-L <name>` under TMUX_TMPDIR.
export function socketPathOf(socketDir: string, runId: string): string {
  return join(realpathSync(socketDir), `tmux-${process.getuid?.() ?? 0}`, serverOf(runId));
}

// `tmux -L team-<run> <args>` against the run's TMUX_TMPDIR, never the user's own tmux.
export async function tmuxOf(socketDir: string, runId: string, args: string[]): Promise<TmuxResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, TMUX_TMPDIR: socketDir };
  delete env.TMUX;
  delete env.TMUX_PANE;
  const result = await execa('tmux', ['-L', serverOf(runId), ...args], { env, extendEnv: false, reject: false, stdin: 'ignore' });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

// What is left of a run: its server, its socket file, its processes.
export async function findLeftovers(socketDir: string, runId: string): Promise<Leftovers> {
  const server = (await tmuxOf(socketDir, runId, ['list-sessions'])).exitCode === 0;
  return { server, socket: existsSync(socketPathOf(socketDir, runId)), processes: findRunProcesses(runId) };
}

// Live processes whose environment holds TEAM_RUN_ID=<run> or whose command line names its server.
export function findRunProcesses(runId: string): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = readProc(entry, 'cmdline').replace(/\0/g, ' ').trim();
    const environ = readProc(entry, 'environ').split('\0');
    if (isZombie(entry)) continue;
    if (environ.includes(`TEAM_RUN_ID=${runId}`) || cmdline.includes(serverOf(runId))) found.push({ pid: Number(entry), cmdline });
  }
  return found;
}

// Kills a server the test kept on purpose (--keep-panes) and removes its socket file. kill-server
// returns before the server has hung up its panes' clients and exited: wait (bounded) for that.
export async function killKeptServer(socketDir: string, runId: string): Promise<void> {
  await tmuxOf(socketDir, runId, ['kill-server']);
  rmSync(socketPathOf(socketDir, runId), { force: true });
  for (const deadline = Date.now() + 10_000; findRunProcesses(runId).length > 0 && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Kills every tmux server whose socket is in a TMUX_TMPDIR made here (only tests' own), then removes the folders.
export async function removeSocketDirs(): Promise<void> {
  for (const dir of socketDirs.splice(0)) {
    const sockets = join(dir, `tmux-${process.getuid?.() ?? 0}`);
    const names = existsSync(sockets) ? readdirSync(sockets).filter((name) => name.startsWith('team-') && !name.endsWith('.conf')) : [];
    for (const name of names) await tmuxOf(dir, name.slice('team-'.length), ['kill-server']);
    rmSync(dir, { recursive: true, force: true });
  }
}

function readProc(pid: string, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
}

function isZombie(pid: string): boolean {
  const stat = readProc(pid, 'stat');
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X' || stat === '';
}

// The lifecycle of a run's private tmux server: start on demand, kill with everything in it.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive, listGroupMembers, ownsGroup, readPidStart, signalGroup, waitUntil } from '../../src/sys/proc.js';
import { listTargetPanes } from './panes.js';
import {
  resolveTarget,
  runTmux,
  SESSION,
  toServerName,
  toSocketPath,
  type TmuxOptions,
  type TmuxTarget,
} from './tmux-run.js';

// A fresh server window shows this much scrollback; agents print a lot.
const HISTORY_LIMIT = 50_000;
// How long a killed server and its panes' processes get to disappear.
const GONE_TIMEOUT_MS = 3_000;
// First window of the session: a dead pane showing a banner, so the session owns no process.
const HOME_WINDOW = 'run';

// The generated config: dead panes stay (their status is readable), windows keep worker names.
export function makeTmuxConfig(runId: string): string {
  return [
    `# teamline: private tmux server of run ${runId}`,
    'set -g remain-on-exit on',
    `set -g history-limit ${HISTORY_LIMIT}`,
    'set -g automatic-rename off',
    'set -g allow-rename off',
    'set -g status-interval 0',
    `set -g status-right 'teamline ${runId}'`,
    '',
  ].join('\n');
}

// Starts the run's server with its session unless it already runs; returns where it lives.
export async function ensureServer(runId: string, options: TmuxOptions = {}): Promise<TmuxTarget> {
  const target = resolveTarget(toServerName(runId), options);
  if (await hasSession(target)) return target;
  const configPath = toConfigPath(target);
  await mkdir(target.socketDir, { recursive: true, mode: 0o700 });
  await writeFile(configPath, makeTmuxConfig(runId));
  const banner = `teamline run ${runId}: one window per worker (prefix + w lists them)`;
  const args = ['-f', configPath, 'new-session', '-d', '-s', SESSION, '-n', HOME_WINDOW];
  const started = await runTmux(target, [...args, 'sh', '-c', 'printf "%s\\n" "$1"', 'sh', banner]);
  // A concurrent ensureServer may have won the race: the session existing is what counts.
  if (!started.ok && !(await hasSession(target))) {
    throw new Error(`tmux server ${target.server} did not start: ${started.stderr.trim()}`);
  }
  return target;
}

// Kills the run's server, any process left in its panes' groups, and removes socket and config.
export async function killServer(runId: string, options: TmuxOptions = {}): Promise<void> {
  const target = resolveTarget(toServerName(runId), options);
  const panes = (await listTargetPanes(target)) ?? [];
  // A pane's command leads its own session and group (pgid = pane pid); a dead one may leave members behind.
  const groups = panes.filter((pane) => listGroupMembers(pane.pid).length > 0).map((pane) => ({ pgid: pane.pid, start: readPidStart(pane.pid) }));
  const serverPid = await readServerPid(target);
  const serverStart = serverPid === undefined ? undefined : readPidStart(serverPid);
  await runTmux(target, ['kill-server']);
  if (serverPid !== undefined && serverStart !== undefined) {
    await waitUntil(() => !isProcessAlive(serverPid, serverStart), GONE_TIMEOUT_MS);
  }
  // SIGHUP from the closing panes may not have ended everything.
  // Each group is looked at again: still led by the pane's process, or by none (never by a recycled pid).
  for (const { pgid, start } of groups) if (listGroupMembers(pgid).length > 0 && (start === undefined || ownsGroup(pgid, start))) signalGroup(pgid, 'SIGKILL');
  await waitUntil(() => groups.every(({ pgid }) => listGroupMembers(pgid).length === 0), GONE_TIMEOUT_MS);
  await rm(toSocketPath(target), { force: true });
  await rm(toConfigPath(target), { force: true });
}

// The argv of `team attach`: the run's server, whatever TMUX_TMPDIR the user's shell has.
export function attachCommand(runId: string, options: TmuxOptions = {}): string[] {
  const target = resolveTarget(toServerName(runId), options);
  const tmux = [target.tmuxPath, '-L', target.server, 'attach-session', '-t', SESSION];
  return ['env', `TMUX_TMPDIR=${target.socketDir}`, ...tmux];
}

async function hasSession(target: TmuxTarget): Promise<boolean> {
  return (await runTmux(target, ['has-session', '-t', SESSION])).ok;
}

async function readServerPid(target: TmuxTarget): Promise<number | undefined> {
  const result = await runTmux(target, ['list-sessions', '-F', '#{pid}']);
  const pid = Number(result.stdout.split('\n')[0]);
  return result.ok && pid > 0 ? pid : undefined;
}

function toConfigPath(target: TmuxTarget): string {
  return join(target.socketDir, `${target.server}.tmux.conf`);
}

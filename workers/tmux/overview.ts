// The overview window of a run's server: every worker's window at once, tiled, each pane a
// read-only view (a nested client of a grouped session) of one worker's window.
import { listTargetPanes } from './panes.js';
import { resolveTarget, runTmux, SESSION, toServerName, type TmuxOptions, type TmuxTarget } from './tmux-run.js';

// The overview window's name, and the prefix of the grouped sessions its panes show.
export const OVERVIEW_WINDOW = 'overview';
const VIEW_PREFIX = 'view-';
// Windows that are not workers: the banner window and the overview itself.
const NOT_WORKERS = new Set(['run', OVERVIEW_WINDOW]);

// (Re)builds the overview of every worker window and makes it the session's current window;
// returns the workers shown (none: no overview, the session is left as it was).
export async function buildOverview(runId: string, options: TmuxOptions = {}): Promise<string[]> {
  const target = resolveTarget(toServerName(runId), options);
  const panes = (await listTargetPanes(target)) ?? [];
  const workers = [...new Set(panes.map((p) => p.window).filter((w) => !NOT_WORKERS.has(w)))].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  await removeOverview(target);
  if (workers.length === 0) return [];
  for (const worker of workers) {
    const view = `${VIEW_PREFIX}${worker}`;
    await runTmux(target, ['new-session', '-d', '-s', view, '-t', SESSION]);
    await runTmux(target, ['set-option', '-t', view, 'status', 'off']);
    await runTmux(target, ['select-window', '-t', `=${view}:=${worker}`]);
  }
  const [first, ...rest] = workers;
  const opened = await runTmux(target, ['new-window', '-d', '-n', OVERVIEW_WINDOW, '-t', `${SESSION}:`, ...viewCommand(target, first!)]);
  if (!opened.ok) throw new Error(`tmux ${target.server}: cannot open the overview window: ${opened.stderr.trim()}`);
  const shown = [first!];
  for (const worker of rest) {
    // A window too small for one more pane ends the tiling; the workers shown so far stay.
    if (!(await runTmux(target, ['split-window', '-d', '-t', `=${SESSION}:=${OVERVIEW_WINDOW}`, ...viewCommand(target, worker)])).ok) break;
    await runTmux(target, ['select-layout', '-t', `=${SESSION}:=${OVERVIEW_WINDOW}`, 'tiled']);
    shown.push(worker);
  }
  await runTmux(target, ['select-layout', '-t', `=${SESSION}:=${OVERVIEW_WINDOW}`, 'tiled']);
  await runTmux(target, ['select-window', '-t', `=${SESSION}:=${OVERVIEW_WINDOW}`]);
  return shown;
}

// A read-only client of the worker's view session, run inside a pane of the same server.
function viewCommand(target: TmuxTarget, worker: string): string[] {
  return ['env', '-u', 'TMUX', '-u', 'TMUX_PANE', `TMUX_TMPDIR=${target.socketDir}`, target.tmuxPath, '-L', target.server, 'attach-session', '-r', '-t', `=${VIEW_PREFIX}${worker}`];
}

// Removes an earlier overview window and its view sessions (workers may have come since).
async function removeOverview(target: TmuxTarget): Promise<void> {
  await runTmux(target, ['kill-window', '-t', `=${SESSION}:=${OVERVIEW_WINDOW}`]);
  const sessions = await runTmux(target, ['list-sessions', '-F', '#{session_name}']);
  for (const name of sessions.stdout.split('\n').filter((n) => n.startsWith(VIEW_PREFIX))) await runTmux(target, ['kill-session', '-t', `=${name}`]);
}

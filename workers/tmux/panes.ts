// Reads the panes of a run's server: the only source of truth on pane liveness (display-message lies).
import { resolveTarget, runTmux, toServerName, type TmuxOptions, type TmuxTarget } from './tmux-run.js';

// Pane user option holding the attempt folder, so stop() finds it from a handle alone.
export const ATTEMPT_DIR_OPTION = '@team_attempt_dir';

const FIELDS = [
  'pane_id',
  'window_id',
  'pane_pid',
  'pane_dead',
  'pane_dead_status',
  'pane_dead_signal',
  'window_name',
  ATTEMPT_DIR_OPTION,
];
const FORMAT = FIELDS.map((field) => `#{${field}}`).join('\t');

export interface PaneInfo {
  paneId: string;
  windowId: string;
  window: string;
  pid: number;
  dead: boolean;
  /** Exit status of a dead pane's command; null when it died of a signal (or lives). */
  deadStatus: number | null;
  /** Signal number that ended a dead pane's command. */
  deadSignal: number | null;
  attemptDir?: string;
}

// Where a recorded pane stands: running, dead (kept by remain-on-exit), gone, running a later
// attempt (respawned), or no server at all.
export type PaneState =
  | { kind: 'live'; pane: PaneInfo }
  | { kind: 'dead'; pane: PaneInfo }
  | { kind: 'gone' }
  | { kind: 'reused' }
  | { kind: 'no-server' };

// Every pane of a run's server; empty when the server is not running.
export async function listPanes(runId: string, options: TmuxOptions = {}): Promise<PaneInfo[]> {
  return (await listTargetPanes(resolveTarget(toServerName(runId), options))) ?? [];
}

// Every pane of a server; undefined when the server cannot be reached.
export async function listTargetPanes(target: TmuxTarget): Promise<PaneInfo[] | undefined> {
  const result = await runTmux(target, ['list-panes', '-a', '-F', FORMAT]);
  if (!result.ok) return undefined;
  return result.stdout.split('\n').filter(Boolean).map(toPaneInfo);
}

// The state of one recorded pane command, by pane id and the pid it was started with.
export async function readPaneState(target: TmuxTarget, recorded: { paneId: string; pid: number }): Promise<PaneState> {
  const panes = await listTargetPanes(target);
  if (panes === undefined) return { kind: 'no-server' };
  const pane = panes.find((candidate) => candidate.paneId === recorded.paneId);
  if (pane === undefined) return { kind: 'gone' };
  if (pane.pid !== recorded.pid) return { kind: 'reused' };
  return pane.dead ? { kind: 'dead', pane } : { kind: 'live', pane };
}

function toPaneInfo(line: string): PaneInfo {
  const [paneId = '', windowId = '', pid = '', dead = '', status = '', signal = '', window = '', ...rest] =
    line.split('\t');
  const attemptDir = rest.join('\t');
  return {
    paneId,
    windowId,
    window,
    pid: Number(pid),
    dead: dead === '1',
    deadStatus: status === '' ? null : Number(status),
    deadSignal: signal === '' ? null : Number(signal),
    ...(attemptDir ? { attemptDir } : {}),
  };
}

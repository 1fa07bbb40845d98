// The pane's command: a small sh file that waits for the go signal, then execs the shared wrapper.
import { join, resolve } from 'node:path';
import type { LaunchSpec } from '../types.js';
import { EXIT_FILE, quoteShellWord, toShellCommand, wrapperArgv, wrapperEnv } from '../wrapper.js';
import { toSocketPath, type TmuxTarget } from './tmux-run.js';

// Written into the attempt folder; argv and env stay off tmux's command line (which has a size cap).
export const LAUNCH_FILE = 'launch.sh';

// Status of a pane whose working folder is missing, as a shell reports an unusable command.
const NO_CWD_STATUS = 126;

// A wait-for channel of one attempt: `go` releases the pane, `done` reports its end.
export function toChannel(spec: LaunchSpec, kind: 'go' | 'done'): string {
  return `team-${spec.runId}/${spec.taskId}/a${spec.attempt}/${kind}`;
}

function noCwdRecord(spec: LaunchSpec): string {
  return JSON.stringify({ exitCode: NO_CWD_STATUS, signal: null, reason: `the working folder ${resolve(spec.cwd)} does not exist` });
}

// The launch file's text; the pane runs `sh <file>`, so its pid becomes the wrapper's (exec).
export function makeLaunchScript(spec: LaunchSpec, target: TmuxTarget): string {
  const tmux = [target.tmuxPath, '-S', toSocketPath(target)];
  const onExit = [...tmux, 'wait-for', '-S', toChannel(spec, 'done')];
  const env = Object.entries(wrapperEnv(spec)).map(([name, value]) => `${name}=${value}`);
  const run = ['env', ...env, ...wrapperArgv(spec, { output: 'tee', onExit })];
  return [
    `# teamline: run ${spec.runId}, task ${spec.taskId}, attempt ${spec.attempt}, ${spec.worker}`,
    '# Hold until the backend has recorded this pane (pid and start time) as the worker.',
    `${toShellCommand([...tmux, 'wait-for', toChannel(spec, 'go')])} >/dev/null 2>&1`,
    // No working folder: the agent never runs; the exit record says why (a dead pane's status can lag).
    `cd ${quoteShellWord(resolve(spec.cwd))} || { printf '%s\\n' ${quoteShellWord(noCwdRecord(spec))} > ${quoteShellWord(join(spec.attemptDir, '.exit.json.tmp'))} && mv -f ${quoteShellWord(join(spec.attemptDir, '.exit.json.tmp'))} ${quoteShellWord(join(spec.attemptDir, EXIT_FILE))}; exit ${NO_CWD_STATUS}; }`,
    `exec ${toShellCommand(run)}`,
    '',
  ].join('\n');
}

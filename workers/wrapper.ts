// The POSIX sh wrapper every backend runs an agent through: pid and exit records, output capture.
import { readSmallFile } from '../src/sys/regular-file.js';
import type { LaunchSpec } from './types.js';

// File names inside an attempt folder, shared by the wrapper, the backends and the runtime.
export const PID_FILE = 'pid.json';
export const EXIT_FILE = 'exit.json';
export const OUTPUT_FILE = 'output.log';
export const SHUTDOWN_FILE = 'shutdown';

export interface WrapperOptions {
  /**
   * `tee`: the wrapper copies the agent's stdout and stderr to <attemptDir>/output.log and to its
   * own stdout (a tmux pane). `inherit`: the caller already redirected the output (process backend).
   */
  output: 'tee' | 'inherit';
  /** Argv run once exit.json is in place (e.g. `tmux wait-for -S`); its failure is ignored. */
  onExit?: string[];
  /**
   * The launcher's channel (workers/launcher.ts): the wrapper takes a launch id after its stdin
   * file, says on fd 3 that it started (with its /proc stat line) and how its agent ended; the agent
   * never sees fd 3.
   */
  notify?: boolean;
}

// What the wrapper writes to exit.json when the agent has ended (when: the file's mtime).
export interface ExitRecord {
  exitCode: number | null;
  signal: string | null;
  /** Set when the agent never ran (e.g. its working folder is missing). */
  reason?: string;
}

// Shared head: argument names, the record writer and run.
// The wrapper outlives SIGINT and SIGTERM (a trap, which its children do not inherit) to record the end;
// pid.json comes after the trap, so a signal sent once it exists cannot kill the wrapper unrecorded.
// A stop requested before the agent started skips it, with the status of an interrupted command (130).
// A record is one short printf (a builtin: one write, no process started): a reader sees the file
// empty or whole, and takes an empty one as not written yet. Times are the files' mtimes.
function scriptHead(notify: boolean): string {
  const args = notify ? 'dir=$1; stdin_file=$2; launch=$3; shift 3' : 'dir=$1; stdin_file=$2; shift 2';
  const close = notify ? ' 3>&-' : '';
  return `trap : INT TERM
${args}
put() { printf '%s\\n' "$2" > "$dir/$1"; }
run() {
  if [ -e "$dir/${SHUTDOWN_FILE}" ]; then echo "teamline: stop requested before the agent started" >&2; return 130; fi
  if [ -n "$stdin_file" ]; then "$@" < "$stdin_file"${close}; else "$@"${close}; fi
}
put ${PID_FILE} "{\\"pid\\":$$}"${notify ? NOTIFY_STARTED : ''}`;
}

// The launcher learns the wrapper's pid from the wrapper itself, once it runs in its own session.
// An orchestrator killed since the launch left the channel with no reader: the word is lost, but the
// wrapper runs on (its pid.json tells the successor of it), where SIGPIPE would have ended it before
// its agent started. SIGPIPE is ignored for the word only: the agent starts with it as it came.
const NOTIFY_STARTED = `
trap '' PIPE
printf 'started %s %s\\n' "$launch" "$$" >&3 2>/dev/null
trap - PIPE`;

// How the agent ended, once exit.json is written; a reader gone (the orchestrator died) is no matter.
const NOTIFY_ENDED = `trap '' PIPE
printf 'ended %s %s\\n' "$$" "$status" >&3 2>/dev/null
exec 3>&-`;

// The agent writes into a fifo read by tee, so $? is the agent's own status (dash has no pipefail).
// tee ignores SIGINT (-i) and SIGTERM so it keeps the agent's last words when we ask it to stop.
const RUN_TEE = `fifo="$dir/.output.fifo"
rm -f "$fifo"; mkfifo "$fifo" || exit 125
(trap '' TERM; exec tee -i "$dir/${OUTPUT_FILE}" < "$fifo") &
tee_pid=$!
run "$@" > "$fifo" 2>&1
status=$?
while kill -0 "$tee_pid" 2>/dev/null; do wait "$tee_pid"; done
rm -f "$fifo"`;

const RUN_INHERIT = `run "$@"
status=$?`;

// A shell reports death by signal N as 128+N: recorded as the signal with no exit code.
const SCRIPT_TAIL = `code=$status; sig=null
if [ "$status" -gt 128 ] && [ "$status" -le 192 ] && name=$(kill -l "$status" 2>/dev/null); then code=null; sig="\\"SIG$name\\""; fi
put ${EXIT_FILE} "{\\"exitCode\\":$code,\\"signal\\":$sig}"`;

// Quotes one word for sh so that any text (spaces, quotes, newlines) survives intact.
export function quoteShellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

// Joins an argv into one sh command line.
export function toShellCommand(argv: readonly string[]): string {
  return argv.map(quoteShellWord).join(' ');
}

// The wrapper script; its arguments are <attemptDir> <stdinFile or ''> <file> <args...>.
export function makeWrapperScript(options: WrapperOptions): string {
  const hook = options.onExit ? `${toShellCommand(options.onExit)} >/dev/null 2>&1 || :` : ':';
  const body = options.output === 'tee' ? RUN_TEE : RUN_INHERIT;
  const notify = options.notify === true;
  return [scriptHead(notify), body, SCRIPT_TAIL, hook, ...(notify ? [NOTIFY_ENDED] : []), 'exit "$status"', ''].join('\n');
}

// The full argv that runs an attempt's agent through the wrapper: `sh -c <script> sh <dir> <stdin> <file> <args...>`.
export function wrapperArgv(spec: LaunchSpec, options: WrapperOptions): string[] {
  const { file, args, stdinFile } = spec.command;
  return ['sh', '-c', makeWrapperScript(options), 'sh', spec.attemptDir, stdinFile ?? '', file, ...args];
}

// The environment additions of an attempt: the runtime's TEAM_* and the agent's own on top.
export function wrapperEnv(spec: LaunchSpec): Record<string, string> {
  return { ...spec.env, ...spec.command.env };
}

// Reads the wrapper's exit record; undefined when absent or not (yet) a valid record. A link, a
// FIFO or anything else put in its place is no record, and is never read in a way that blocks.
export async function readExitRecord(attemptDir: string): Promise<ExitRecord | undefined> {
  const data = readJson(`${attemptDir}/${EXIT_FILE}`);
  if (typeof data !== 'object' || data === null) return undefined;
  const { exitCode, signal, reason } = data as Record<string, unknown>;
  const codeOk = exitCode === null || Number.isInteger(exitCode);
  const signalOk = signal === null || typeof signal === 'string';
  if (!codeOk || !signalOk) return undefined;
  return { exitCode: exitCode as number | null, signal: signal as string | null, ...(typeof reason === 'string' ? { reason } : {}) };
}

// The wrapper writes a few dozen bytes; a reason of the launcher's is a line.
const EXIT_RECORD_BYTES = 16 * 1024;

function readJson(path: string): unknown {
  const read = readSmallFile(path, EXIT_RECORD_BYTES);
  if (!read.ok) return undefined;
  try {
    return JSON.parse(read.text);
  } catch {
    return undefined;
  }
}

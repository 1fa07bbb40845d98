// Runs one verify gate in a process group of its own, its output streamed to a file, and ends the
// whole group when the gate ends, times out or is cancelled: `npm test`'s children never outlive it.
import { closeSync, fstatSync, openSync, readSync, rmSync } from 'node:fs';
import { herePlace, listGroupMembers, readPidStart, signalGroup, waitUntil } from '../sys/proc.js';
import type { AgentCommand, WorkerHandle } from '../../workers/types.js';

// How long the group has between SIGTERM and SIGKILL.
const GROUP_GRACE_MS = 2_000;
// The gate's shell waits for this line, written once its group is recorded: nothing of a gate runs
// before the log knows its group, and a gate whose orchestrator died before that never runs.
const GO = 'go';
const HELD_GATE = `IFS= read -r go && [ "$go" = ${GO} ] && exec "$@"`;
// Bytes read back from the end of the output file for the log's tail (a character is at most 4).
const TAIL_BYTES = 16 * 1024;

export interface GateRun {
  exitCode: number | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** The last characters of the output, at most `tailChars`. */
  tail: string;
}

// Runs `sh -c command` in `cwd` (through `wrap`: the fence), writing stdout and stderr, interleaved,
// to `outputFile`; `record` gets the gate's process group before the command starts.
export async function runGate(command: string, options: { cwd: string; outputFile: string; timeoutMs: number; signal: AbortSignal; tailChars: number; record: (group: WorkerHandle) => Promise<void>; wrap?: (command: AgentCommand) => Promise<AgentCommand> }): Promise<GateRun> {
  const plain: AgentCommand = { file: 'sh', args: ['-c', command] };
  const gate = options.wrap ? await options.wrap(plain) : plain;
  // Loaded at the first gate: a run without verify commands never loads execa's modules.
  const { execa } = await import('execa');
  const started = Date.now();
  // A fresh file: whatever an earlier pass or anyone else left under this name is replaced, never followed.
  rmSync(options.outputFile, { force: true });
  const fd = openSync(options.outputFile, 'wx+');
  // execa hands a file descriptor number straight to spawn, so the gate writes the file itself and
  // no pipe through us waits on its children; its types only name 1 and 2 for stdout and stderr.
  const toFile = fd as unknown as 1;
  let pgid: number | undefined;
  const done = new AbortController();
  try {
    const subprocess = execa('sh', ['-c', HELD_GATE, 'sh', gate.file, ...gate.args], {
      cwd: options.cwd,
      ...(gate.env && { env: gate.env }),
      detached: true,
      // Only the go line; the command then reads an empty stdin, as it would /dev/null.
      stdin: 'pipe',
      stdout: toFile,
      stderr: toFile,
      reject: false,
      timeout: options.timeoutMs,
      cancelSignal: options.signal,
      forceKillAfterDelay: GROUP_GRACE_MS,
    });
    pgid = subprocess.pid;
    // A cancel reaches the whole group at once, even if the orchestrator ends before the shell's exit is seen.
    const group = pgid;
    if (group !== undefined) {
      await options.record({ backend: 'process', pid: group, pidStart: readPidStart(group) ?? 0, pgid: group, ...herePlace() });
      options.signal.addEventListener('abort', () => signalGroup(group, 'SIGTERM'), { once: true, signal: done.signal });
    }
    subprocess.stdin?.end(`${GO}\n`);
    const result = await subprocess;
    return {
      exitCode: result.timedOut ? null : (result.exitCode ?? null),
      timedOut: result.timedOut,
      cancelled: result.isCanceled,
      durationMs: Date.now() - started,
      tail: readTail(fd, options.tailChars),
    };
  } finally {
    done.abort();
    closeSync(fd);
    if (pgid !== undefined) await endGroup(pgid);
  }
}

// SIGTERM to every process left in the group, SIGKILL to those still there after the grace.
async function endGroup(pgid: number): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  if (await waitUntil(() => listGroupMembers(pgid).length === 0, GROUP_GRACE_MS)) return;
  signalGroup(pgid, 'SIGKILL');
}

// The end of the file, read from its end: a gate's megabytes never sit in the orchestrator.
function readTail(fd: number, chars: number): string {
  const size = fstatSync(fd).size;
  const length = Math.min(size, TAIL_BYTES);
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const read = readSync(fd, buffer, done, length - done, size - length + done);
    if (read === 0) break;
    done += read;
  }
  // A cut through a multi-byte character decodes to U+FFFD at the start; slicing drops it with the rest.
  return buffer.subarray(0, done).toString('utf8').slice(-chars);
}

// Which pid namespace this process runs in, and whether a detached orchestrator started here would
// end with the command that starts it (an agent CLI's sandbox runs each command in a namespace of
// its own: when the command's process tree ends, its pid 1 ends and the kernel kills the rest).
import { readFileSync } from 'node:fs';
import { PID_NS, readProcStat } from './proc.js';

// The init pid namespace (the kernel's PROC_PID_INIT_INO): a machine's own, outside any container.
export const INIT_PID_NS = 'pid:[4026531836]';


// Init systems keep their namespace alive whatever ends under them; tini and the like do not.
const INIT_NAMES = new Set(['systemd', 'init', 'runit', 'runit-init', 's6-svscan', 'openrc-init', 'upstart', 'busybox']);
// Variables the Codex CLI sets in the commands its sandbox runs.
const SANDBOX_VARS = ['CODEX_SANDBOX', 'CODEX_SANDBOX_NETWORK_DISABLED'];
// More parents than any real chain has: a loop in a torn /proc read ends here.
const MAX_HOPS = 256;

// Why the pid namespace ends with this command, or undefined when a detached orchestrator outlives
// it. It ends with us when it is not the init namespace, its pid 1 is this process or one of its
// ancestors, and that pid 1 is no init system; an interactive shell as pid 1 (a container's
// terminal, a controlling tty) lives on, unless a sandbox's variable says it is a sandbox's command.
// Unknown (no /proc, pid 1 hidden) counts as outliving: a normal container is never refused.
export function namespaceEndsWithCommand(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (PID_NS === undefined || PID_NS === INIT_PID_NS) return undefined;
  const first = readProcStat(1);
  if (!first) return undefined;
  const name = readComm(1);
  if (INIT_NAMES.has(name)) return undefined;
  const sandboxed = SANDBOX_VARS.find((key) => env[key] !== undefined);
  if (first.ttyNr !== 0 && sandboxed === undefined) return undefined;
  let pid = process.pid;
  for (let hops = 0; pid > 1 && hops < MAX_HOPS; hops++) pid = readProcStat(pid)?.ppid ?? 0;
  if (pid !== 1) return undefined;
  return `this command runs in a process namespace of its own (${PID_NS}${sandboxed ? `, ${sandboxed} is set` : ''}) whose pid 1 (${name || 'unnamed'}) is this command's own ancestor: when the command ends, the namespace ends and a detached orchestrator with it`;
}

function readComm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

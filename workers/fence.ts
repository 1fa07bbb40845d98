// The fence around an attempt's process tree: bubblewrap (Debian's `bubblewrap`) mounts the whole
// file system read-only in a mount namespace of the attempt's own and binds back, writable, only
// the places the attempt's work lives (its working folder, its attempt folder, a private temporary
// folder, the CLI's own state, what a commit in a worktree needs). The agent's writes anywhere else
// fail inside it with EROFS; the user's checkout, branches and home stay as they were.
//
// Why bubblewrap itself and not @anthropic-ai/sandbox-runtime (which drives bubblewrap on Linux):
// the fence here is a file-system fence only (the CLIs need their APIs, so the network stays open),
// and the runtime's value is its network proxy and its policy language; it would add a Node layer,
// socat and a proxy per attempt for a list of binds we already compute. bwrap is one exec.
//
// Only the mount namespace (and, when not root, the user namespace bwrap needs for it) is new: the
// agent keeps the orchestrator's pids, process group and session, so that its stop, its re-adoption
// after a crash and the look for escaped descendants work as they do unfenced (no --unshare-pid,
// no --new-session).
import { execFileSync } from 'node:child_process';
import { normalize } from 'node:path';
import type { AgentCommand } from './types.js';
import { findOnPath } from '../src/sys/on-path.js';

export interface FencePlan {
  /** Absolute paths bound writable, each as itself; each must exist. */
  writable: string[];
  /** The private temporary folder (TMPDIR, TMP, TEMP inside), one of `writable`. */
  tmp: string;
  /** Places a CLI keeps outside TMPDIR for its own use (codex's daemon folder): a private folder of the attempt's is bound there (the target must exist). */
  masks?: Array<{ source: string; target: string }>;
}

export type FenceProbe = { ok: true; bwrap: string; env: string } | { ok: false; why: string };

// The signals a stop sends the attempt's process group before SIGKILL. bwrap stays as the agent's
// parent and would die of them at once, leaving its wrapper to report the attempt ended while the
// agent still runs (or still winds down within its grace): bwrap ignores them (GNU env
// --ignore-signal) and the agent has them back as it would unfenced (env --default-signal).
const STOP_SIGNALS = 'INT,TERM';

// The binds that make everything readable as today, the devices usable (a pane's terminal,
// /dev/null), and /proc as it is: a CLI's own sandbox inside the fence (codex's bubblewrap) writes
// its user namespace's uid map there.
const BASE = ['--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--bind', '/proc', '/proc'];

// The command line that runs `command` inside the fence.
export function fencedCommand(command: AgentCommand, plan: FencePlan, fence: { bwrap: string; env: string }): AgentCommand {
  const binds = [...unique(plan.writable).flatMap((path) => ['--bind', path, path]), ...(plan.masks ?? []).flatMap((m) => ['--bind', m.source, m.target])];
  const env = { ...command.env, TMPDIR: plan.tmp, TMP: plan.tmp, TEMP: plan.tmp };
  const args = [`--ignore-signal=${STOP_SIGNALS}`, fence.bwrap, ...BASE, ...binds, '--', fence.env, `--default-signal=${STOP_SIGNALS}`, command.file, ...command.args];
  return { ...command, file: fence.env, args, env };
}

// Parents before children (a child's bind must come after its parent's, or the parent's hides it),
// each once, none that a writable ancestor already covers.
function unique(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const path of sorted) {
    if (!kept.some((parent) => path === parent || path.startsWith(parent.endsWith('/') ? parent : `${parent}/`))) kept.push(path);
  }
  return kept;
}

let probed: FenceProbe | undefined;

// Whether a fence can be built on this machine: bwrap on the PATH, and a trial fence that runs
// `true` (a container without user namespaces, or a kernel that refuses them, fails here). Once
// per process; the answer says why not in the user's words.
export function probeFence(path = process.env.PATH ?? ''): FenceProbe {
  if (probed) return probed;
  if (process.platform !== 'linux') return (probed = { ok: false, why: `the fence needs Linux's bubblewrap; this is ${process.platform}` });
  const bwrap = findOnPath('bwrap', path);
  if (!bwrap) return (probed = { ok: false, why: 'bwrap is not on the PATH (install Debian\'s or your distribution\'s `bubblewrap` package)' });
  const env = findOnPath('env', path);
  try {
    execFileSync(env ?? 'env', [`--ignore-signal=${STOP_SIGNALS}`, `--default-signal=${STOP_SIGNALS}`, 'true'], { stdio: 'ignore', timeout: 30_000 });
  } catch {
    return (probed = { ok: false, why: 'env cannot set signals aside (GNU coreutils 8.31 or later has --ignore-signal), which the fence needs to keep an agent\'s graceful stop' });
  }
  try {
    execFileSync(bwrap, [...BASE, '--', 'true'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
    return (probed = { ok: true, bwrap, env: env! });
  } catch (error) {
    const said = String((error as { stderr?: Buffer }).stderr ?? '').trim().split('\n')[0] || (error as Error).message;
    return (probed = { ok: false, why: `bubblewrap cannot build a fence here (${said}); user namespaces may be off in this container or kernel` });
  }
}

// At most this many refused paths are kept of an attempt, each at most this long.
const MAX_REFUSED = 20;
const MAX_PATH = 300;

// The paths an attempt's output says a write to was refused as read-only (the fence's EROFS, in the
// words of git, sh, coreutils, node and python): `'/p': Read-only file system`, `cannot create /p:
// Read-only file system`, `EROFS: read-only file system, open '/p'`, the same inside a CLI's JSON.
export function refusedPaths(output: string): string[] {
  const found = new Set<string>();
  for (const line of output.split('\n')) {
    if (!/read-only file system|EROFS/i.test(line)) continue;
    const quoted = [...line.matchAll(/(?:\\?["'`])(\/[^"'`\\\n]+?)(?:\\?["'`])/g)].map((m) => m[1]!);
    const bare = [...line.matchAll(/(?:^|\s)(\/[^\s:'"`\\]+):\s*Read-only file system/gi)].map((m) => m[1]!);
    for (const path of [...quoted, ...bare].map((p) => normalize(p))) {
      if (found.size >= MAX_REFUSED) break;
      found.add(path.length > MAX_PATH ? `${path.slice(0, MAX_PATH)}…` : path);
    }
  }
  return [...found];
}

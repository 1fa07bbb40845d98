// A long-lived sh that starts the attempts' wrappers, so that the orchestrator forks once, not once
// per attempt: a fork of node write-protects and copies its whole address space, which costs its
// main thread milliseconds per attempt; a fork of a small sh costs a fraction of one. The launcher
// is `sh -s`: each launch is one command it reads on its stdin, a subshell that enters the working
// folder, exports the attempt's environment and execs `setsid sh -c <wrapper>`, so the wrapper
// leads a session and process group of its own, as execa's `detached` gives. A shell reads its
// commands in blocks, where its `read` builtin reads a line one byte at a time, one system call per
// byte (0.7 ms of the launcher's time per launch of 600 bytes, on the same cores as the agents).
// The wrapper tells on the launcher's stdout (its fd 3) that it started, with its pid and start
// time, and how its agent ended.
//
// Where perl is (perl-base is part of every Debian and Ubuntu), the launcher is a perl loop instead:
// it forks the wrapper itself and puts it in a session of its own (setsid(2)), so that an attempt
// costs one exec (the wrapper's sh) where the shell's costs three (GNU env to undo the shell's
// ignored SIGINT and SIGQUIT, setsid, sh): about 1.3 ms of CPU less an attempt, on the cores the
// agents run on. A perl launch is one line of NUL-separated fields (\, newline and NUL escaped).
import { spawn, type ChildProcess } from 'node:child_process';
import { readPidStart } from '../src/sys/proc.js';
import { quoteShellWord } from './wrapper.js';

// A launch line longer than this (a prompt passed as an argument) goes through execa instead, which
// says itself when an argument list is over the system's limit.
export const MAX_LAUNCH_LINE = 256 * 1024;
// A launch whose wrapper has not said it started by then is given up on (and stopped if it starts
// later): a minute normally, two seconds once the launcher has ended (the subshell of a launch it
// forked may still be on its way to the wrapper).
const LAUNCH_TIMEOUT_MS = 60_000;
const LOST_LAUNCH_MS = 2_000;
// How long a closed launcher's shell may take to read the end of its input and exit.
const CLOSE_MS = 5_000;

// What the launcher reads first: $1 is the wrapper script, $2 and $3 the paths of setsid and sh, $4
// that of env. sh starts the commands of an async list with SIGINT and SIGQUIT ignored (it has no
// job control), and no shell can undo that for itself or its children: the wrapper's trap and the
// agent would keep them ignored, so a stop's polite SIGINT would never reach the agent. GNU env
// (coreutils 8.31 and later) sets them back to their defaults before the wrapper starts; with an env
// that cannot, E stays empty and the stop's SIGTERM still comes after the grace.
const PRELUDE = `W=$1; S=$2; SH=$3; EV=$4; shift 4
E=; if [ -n "$EV" ] && "$EV" --default-signal=INT,QUIT true 2>/dev/null; then E=$EV; fi
nl='
'
`;
// Each launch begins with this: commands still in the pipe when the orchestrator died are not
// launched, as its successor may already have judged those attempts never started.
const ORCHESTRATOR_ALIVE = 'kill -0 "$PPID" 2>/dev/null || exit 0; ';

// The perl launcher: $ARGV[0] the wrapper script, $ARGV[1] the path of sh. Each line: the launch
// id, the working folder, the output file, the count of environment entries, the entries
// (NAME=value), then the wrapper's arguments. The wrapper starts in its own session, with the
// dispositions perl got from node (all default), /dev/null on stdin, the output file (appended)
// on stdout and stderr and the channel on fd 3. perl stays the wrapper's parent, which reaps it
// at a later launch, as the shell reaps its jobs; lines still in the pipe when the orchestrator
// died are not launched.
const PERL_LAUNCHER = String.raw`use strict; use POSIX ();
my ($W, $SH) = @ARGV; my $orchestrator = getppid(); $| = 1;
sub say3 { my $m = shift; POSIX::write(3, $m, length $m) }
sub word { my $s = shift; $s =~ s/\\(.)/$1 eq 'n' ? "\n" : $1 eq '0' ? "\0" : $1/ges; $s }
while (defined(my $line = <STDIN>)) {
  exit 0 if getppid() != $orchestrator;
  chomp $line;
  1 while waitpid(-1, POSIX::WNOHANG()) > 0;
  my @f = map { word($_) } split /\0/, $line, -1;
  my ($id, $cwd, $out, $count) = splice(@f, 0, 4);
  my @env = splice(@f, 0, $count);
  my $pid = fork;
  if (!defined $pid) { print "failed $id cannot fork: $!\n"; next }
  next if $pid;
  POSIX::setsid();
  chdir $cwd or do { print "failed $id cwd\n"; POSIX::_exit(0) };
  for (@env) { my ($k, $v) = split /=/, $_, 2; $ENV{$k} = $v }
  defined POSIX::dup2(1, 3) or POSIX::_exit(0);
  open(STDIN, '<', '/dev/null');
  open(STDOUT, '>>', $out) or do { say3("failed $id output file: $!\n"); POSIX::_exit(0) };
  open(STDERR, '>&', \*STDOUT);
  exec { $SH } 'sh', '-c', $W, 'sh', @f;
  say3("failed $id cannot start sh: $!\n"); POSIX::_exit(0);
}`;

// One launch's line for the perl launcher, or undefined when it would be too long (as the shell's).
export function makePerlLaunch(id: number, request: LaunchRequest): string | undefined {
  const names = Object.keys(request.env).filter((name) => NAME.test(name));
  const fields = [String(id), request.cwd, request.outputFile, String(names.length), ...names.map((name) => `${name}=${request.env[name]!}`), request.attemptDir, request.stdinFile, String(id), request.file, ...request.args];
  const line = `${fields.map(perlWord).join('\0')}\n`;
  return line.length > MAX_LAUNCH_LINE ? undefined : line;
}

// A field of a perl launch: backslash, newline and NUL escaped (word() in the script undoes it).
function perlWord(value: string): string {
  return value.replace(/[\\\n\0]/g, (c) => (c === '\n' ? '\\n' : c === '\0' ? '\\0' : '\\\\'));
}

export interface LauncherPrograms {
  sh: string;
  setsid: string;
  env?: string;
  /** The launcher is perl's loop where there is a perl, else the shell's. */
  perl?: string;
}

export interface LaunchRequest {
  cwd: string;
  /** Environment additions. */
  env: Record<string, string>;
  /** The wrapper's arguments after the script: <dir> <stdin file> <file> <args...>. */
  attemptDir: string;
  stdinFile: string;
  file: string;
  args: string[];
  /** Where the wrapper's (and so the agent's) stdout and stderr go, appended. */
  outputFile: string;
}

export interface Started {
  pid: number;
  /**
   * Start time in clock ticks since boot, read as soon as the wrapper said it started: it cannot be
   * reaped before it ends. 0 when it had ended and been reaped already (so it is never taken for alive).
   */
  pidStart: number;
  /** The wrapper's status as it reported it; undefined when it ended without a word (killed). */
  ended: Promise<number | undefined>;
}

// Environment names a shell can export.
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

// One launch's line, or undefined when it would be too long. A name that is not a shell identifier
// is left out: the wrapper (sh) would not pass it on to the agent either way. The attempt folder
// and the working folder are spelled once, as $d and $c.
export function makeLaunchLine(id: number, request: LaunchRequest): string | undefined {
  const d = request.attemptDir;
  const c = request.cwd;
  const word = (value: string) => shortWord(value, d, c);
  const names = Object.keys(request.env).filter((name) => NAME.test(name));
  const exports = names.length ? `; export ${names.map((name) => `${name}=${word(request.env[name]!)}`).join(' ')}` : '';
  const argv = ['"$d"', word(request.stdinFile), String(id), word(request.file), ...request.args.map(word)].join(' ');
  const enter = `cd "$c" 2>/dev/null || { printf 'failed ${id} cwd\\n' >&3; exit 0; }`;
  const line = `${ORCHESTRATOR_ALIVE}d=${oneLine(d)}; c=${oneLine(c)}; (${enter}${exports}; exec \${E:+"$E" --default-signal=INT,QUIT} "$S" "$SH" -c "$W" sh ${argv}) 3>&1 </dev/null >>${word(request.outputFile)} 2>&1 &\n`;
  return line.length > MAX_LAUNCH_LINE ? undefined : line;
}

// A value as a word, the attempt folder or the working folder at its start written as $d or $c.
function shortWord(value: string, d: string, c: string): string {
  for (const [prefix, name] of [[d, '"$d"'], [c, '"$c"']] as const) {
    if (value === prefix) return name;
    if (prefix.length > 3 && value.startsWith(`${prefix}/`)) return `${name}${oneLine(value.slice(prefix.length))}`;
  }
  return oneLine(value);
}

// A word quoted for sh on one line: a newline is spliced in from $nl.
function oneLine(word: string): string {
  return quoteShellWord(word).replace(/\n/g, `'"$nl"'`);
}

// The launcher of one backend; started on the first launch, again if it ended.
export class Launcher {
  private subprocess?: ChildProcess;
  private seq = 0;
  private buffered = '';
  private readonly starts = new Map<number, { resolve: (s: Started) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  /** Wrappers started and not yet reported ended, by pid (a wrapper says it started before it ends, on the same pipe). */
  private readonly running = new Map<number, (status: number | undefined) => void>();
  /** Launch ids given up on: a late start of one is stopped at once (never recorded, so never ours to run). */
  private readonly abandoned = new Set<number>();

  constructor(
    /** Absolute paths of sh and setsid (and env, perl where there are): no PATH search per launch. */
    private readonly programs: LauncherPrograms,
    private readonly wrapperScript: string,
    private readonly onAbandonedStart: (pid: number) => void,
  ) {}

  // Starts one wrapper; resolves once it runs in its own session; rejects when it could not start.
  launch(request: LaunchRequest): Promise<Started> | undefined {
    const id = ++this.seq;
    const line = this.programs.perl ? makePerlLaunch(id, request) : makeLaunchLine(id, request);
    if (line === undefined) return undefined;
    const stdin = this.ensure().stdin!;
    const started = new Promise<Started>((resolve, reject) => this.starts.set(id, { resolve, reject, timer: this.giveUp(id, LAUNCH_TIMEOUT_MS) }));
    stdin.write(line);
    return started;
  }

  // Ends the launcher (the wrappers it started run on); a later launch starts a new one. Resolves once
  // the launcher's shell has exited (it reads the end of its input and ends), so that nothing of the
  // run outlives the orchestrator; a shell not gone within CLOSE_MS is killed (it is ours). While it is
  // awaited the shell holds node's event loop again (it was unref'd so as not to keep a run alive):
  // otherwise nothing would, and node would exit in the middle of the run's end.
  close(): Promise<void> {
    const subprocess = this.subprocess;
    this.subprocess = undefined;
    if (!subprocess) return Promise.resolve();
    subprocess.stdin?.end();
    if (subprocess.exitCode !== null || subprocess.signalCode !== null) return Promise.resolve();
    subprocess.ref();
    return new Promise((resolve) => {
      const timer = setTimeout(() => subprocess.kill('SIGKILL'), CLOSE_MS);
      subprocess.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  // node's own spawn, not execa's: the launcher is one long-lived process (perl or sh) with two pipes, and none of
  // execa's work (its options, its result, its buffers) is wanted for it (the first execa call of a
  // process costs it about 10 ms).
  private ensure(): ChildProcess {
    if (this.subprocess) return this.subprocess;
    const { perl, sh, setsid, env } = this.programs;
    const [file, args] = perl ? [perl, ['-e', PERL_LAUNCHER, this.wrapperScript, sh]] : [sh, ['-s', this.wrapperScript, setsid, sh, env ?? '']];
    const subprocess = spawn(file, args, {
      stdio: ['pipe', 'pipe', 'ignore'],
      // Its own session: a Ctrl-C in the orchestrator's terminal is the orchestrator's to handle.
      detached: true,
    });
    subprocess.stdout!.setEncoding('utf8');
    subprocess.stdout!.on('data', (chunk: string) => this.read(chunk));
    // Neither keeps the orchestrator alive: its attempts' own waits do while they run.
    subprocess.unref();
    (subprocess.stdout as unknown as { unref?: () => void }).unref?.();
    (subprocess.stdin as unknown as { unref?: () => void }).unref?.();
    subprocess.stdin!.on('error', () => undefined);
    if (!perl) subprocess.stdin!.write(PRELUDE);
    // Its exit, not the end of its output, which the wrappers it started hold open while they run.
    subprocess.once('exit', () => this.ended(subprocess));
    // A shell that could not start ends as the exit above would: its launches are given up on.
    subprocess.once('error', () => this.ended(subprocess));
    this.subprocess = subprocess;
    return subprocess;
  }

  // The launcher is gone: launches it had not started by now are given up on after a while (the
  // subshell of one it forked may still be on its way to the wrapper).
  private ended(subprocess: ChildProcess): void {
    if (this.subprocess === subprocess) this.subprocess = undefined;
    for (const [id, start] of this.starts) {
      clearTimeout(start.timer);
      start.timer = this.giveUp(id, LOST_LAUNCH_MS);
    }
  }

  private giveUp(id: number, ms: number): NodeJS.Timeout {
    return setTimeout(() => {
      const start = this.starts.get(id);
      if (!start) return;
      this.starts.delete(id);
      this.abandoned.add(id);
      start.reject(new Error(`the agent's wrapper did not start within ${ms / 1000}s`));
    }, ms);
  }

  private read(chunk: string): void {
    const lines = (this.buffered + chunk).split('\n');
    this.buffered = lines.pop()!;
    for (const line of lines) this.handle(line);
  }

  private handle(line: string): void {
    const [kind, first, ...rest] = line.split(' ');
    if (kind === 'started') return this.onStarted(Number(first), rest.join(' '));
    if (kind === 'failed') return this.onFailed(Number(first), rest.join(' '));
    if (kind === 'ended') return this.onEnded(Number(first), Number(rest[0]));
  }

  private onStarted(id: number, word: string): void {
    const pid = Number(word);
    if (!Number.isInteger(pid) || pid <= 1) return;
    const start = this.starts.get(id);
    if (!start) {
      if (this.abandoned.delete(id)) this.onAbandonedStart(pid);
      return;
    }
    this.starts.delete(id);
    clearTimeout(start.timer);
    const ended = new Promise<number | undefined>((resolve) => this.running.set(pid, resolve));
    start.resolve({ pid, pidStart: readPidStart(pid) ?? 0, ended });
  }

  private onFailed(id: number, what: string): void {
    const start = this.starts.get(id);
    if (!start) return;
    this.starts.delete(id);
    clearTimeout(start.timer);
    start.reject(new Error(what === 'cwd' ? 'the working folder is missing or cannot be entered' : what));
  }

  private onEnded(pid: number, status: number): void {
    const resolve = this.running.get(pid);
    this.running.delete(pid);
    resolve?.(Number.isInteger(status) ? status : undefined);
  }

  // A wrapper known to be gone without a word (killed): its wait stops listening for one.
  forget(pid: number): void {
    const resolve = this.running.get(pid);
    this.running.delete(pid);
    resolve?.(undefined);
  }
}

// The process backend's launcher: one long-lived perl loop (where there is a perl) or sh that starts
// each attempt's wrapper in a session and process group of its own, as execa's `detached` did, with
// the attempt's folder, environment and argv intact, and that tells how the agent ended. Both
// launchers pass the same tests: this machine has a perl, and the shell's runs where there is none.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { makeLaunchLine, makePerlLaunch, MAX_LAUNCH_LINE } from '../../workers/launcher.js';
import { createProcessBackend } from '../../workers/process.js';
import { isProcessAlive, readProcStat, signalGroup, waitUntil } from '../../src/sys/proc.js';
import type { LaunchSpec, WorkerBackend, WorkerHandle } from '../../workers/types.js';
import { makeWrapperScript, OUTPUT_FILE } from '../../workers/wrapper.js';

const folders: string[] = [];
const backends: WorkerBackend[] = [];
const handles: WorkerHandle[] = [];

afterEach(() => {
  for (const handle of handles.splice(0)) signalGroup(handle.pgid, 'SIGKILL');
  for (const backend of backends.splice(0)) backend.close?.();
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type LauncherKind = 'perl' | 'shell';
const LAUNCHERS: LauncherKind[] = ['perl', 'shell'];

function makeBackend(kind: LauncherKind = 'perl'): WorkerBackend {
  const backend = createProcessBackend(kind === 'shell' ? { launcher: 'shell' } : {});
  backends.push(backend);
  return backend;
}

// An attempt folder and a spec running `sh -c <script> <args...>` in `cwd` (default: a fresh folder).
function makeSpec(script: string, args: string[] = [], options: { cwd?: string; env?: Record<string, string> } = {}): LaunchSpec {
  const root = mkdtempSync(join(tmpdir(), 'teamline-launcher-'));
  folders.push(root);
  const attemptDir = join(root, 'attempt');
  mkdirSync(attemptDir);
  const cwd = options.cwd ?? join(root, 'work');
  if (!options.cwd) mkdirSync(cwd);
  return {
    runId: 'launcher-test',
    taskId: 't1',
    attempt: 1,
    worker: 'worker-1',
    attemptDir,
    cwd,
    command: { file: 'sh', args: ['-c', script, 'agent', ...args] },
    env: { TEAM_RUN_ID: 'launcher-test', TEAM_TASK_ID: 't1', TEAM_ATTEMPT: '1', ...options.env },
  };
}

async function launch(backend: WorkerBackend, spec: LaunchSpec): Promise<WorkerHandle> {
  const handle = await backend.launch(spec);
  handles.push(handle);
  return handle;
}

function output(spec: LaunchSpec): string {
  return readFileSync(join(spec.attemptDir, OUTPUT_FILE), 'utf8');
}

describe.each(LAUNCHERS)('workers/process launcher (%s)', (kind) => {
  it('starts the wrapper leading its own session and group, in the working folder, with the environment, and reads its end', async () => {
    const backend = makeBackend(kind);
    // The agent's fds, listed by ls (no pipe: the shell would hold the pipe's two ends as fds for a while).
    const spec = makeSpec('pwd; echo "env=$TEAM_TASK_ID/$EXTRA"; ls /proc/$$/fd; echo end; sleep 0.2; exit 7', [], { env: { EXTRA: 'x y' } });
    const handle = await launch(backend, spec);
    const stat = readProcStat(handle.pid);
    // pid, start time, group and session: the wrapper's own, from /proc.
    expect(handle.pgid).toBe(handle.pid);
    expect(stat?.startTime).toBe(handle.pidStart);
    expect(stat?.pgid).toBe(handle.pid);
    expect(readStatField(handle.pid, 3)).toBe(handle.pid);
    const exit = await backend.wait(handle, spec);
    expect(exit).toMatchObject({ exitCode: 7, signal: null, stopped: false });
    const lines = output(spec).trim().split('\n');
    expect(lines[0]).toBe(spec.cwd);
    expect(lines[1]).toBe('env=t1/x y');
    // The launcher's channel (fd 3) is closed for the agent.
    const fds = lines.slice(2, lines.indexOf('end'));
    expect(fds).toEqual(expect.arrayContaining(['0', '1', '2']));
    expect(fds).not.toContain('3');
  });

  it('hands the agent arguments with newlines, quotes and spaces intact', async () => {
    const backend = makeBackend(kind);
    const words = ["it's", 'two\nlines', '"quoted" $HOME `x`', ' spaced ', ''];
    const spec = makeSpec('for a in "$@"; do printf "[%s]" "$a"; done', words);
    const handle = await launch(backend, spec);
    expect((await backend.wait(handle, spec)).exitCode).toBe(0);
    expect(output(spec)).toBe(words.map((w) => `[${w}]`).join(''));
  });

  it('refuses a launch whose working folder is missing, and runs nothing', async () => {
    const backend = makeBackend(kind);
    const spec = makeSpec('touch ran', [], { cwd: join(tmpdir(), `teamline-missing-${process.pid}-${Date.now()}`) });
    await expect(backend.launch(spec)).rejects.toThrow('could not start sh: the working folder is missing or cannot be entered');
    expect(readdirSync(spec.attemptDir)).not.toContain('pid.json');
  });

  it('reads the end of a wrapper killed with SIGKILL, which says nothing', async () => {
    const backend = makeBackend(kind);
    const spec = makeSpec('sleep 600');
    const handle = await launch(backend, spec);
    signalGroup(handle.pgid, 'SIGKILL');
    const exit = await backend.wait(handle, spec);
    expect(exit.stopped).toBe(false);
    expect(exit.reason).toBe('the wrapper left no exit record');
    expect(isProcessAlive(handle.pid, handle.pidStart)).toBe(false);
  });

  it('ends what the agent left running in its group once its end is read, and kills what ignores SIGTERM', async () => {
    const backend = makeBackend(kind);
    // Two children outlive the agent: one that takes SIGTERM, one that ignores it (sleep inherits the
    // ignored signal), and says so once it does.
    const spec = makeSpec(`sleep 600 & echo $! > polite; sh -c 'trap "" TERM; echo $$ > stubborn; exec sleep 600' & while [ ! -s stubborn ]; do sleep 0.01; done; exit 3`);
    const handle = await launch(backend, spec);
    const exit = await backend.wait(handle, spec);
    expect(exit.exitCode).toBe(3);
    const pidOf = (name: string) => Number(readFileSync(join(spec.cwd, name), 'utf8').trim());
    const alive = (pid: number) => {
      const stat = readProcStat(pid);
      return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
    };
    const [polite, stubborn] = [pidOf('polite'), pidOf('stubborn')];
    expect(readProcStat(polite)?.pgid).toBe(handle.pgid);
    expect(await waitUntil(() => !alive(polite), 5_000)).toBe(true);
    // SIGTERM reached it too and did nothing; the SIGKILL that follows a second later ends it.
    expect(alive(stubborn)).toBe(true);
    expect(await waitUntil(() => !alive(stubborn), 5_000)).toBe(true);
  });

  it('lets the polite stop\'s SIGINT reach the agent (sh starts the commands of an async list with SIGINT ignored)', async () => {
    const backend = makeBackend(kind);
    const spec = makeSpec(': > ready; exec sleep 60');
    const handle = await launch(backend, spec);
    const ended = backend.wait(handle, spec);
    await waitUntil(() => existsSync(join(spec.cwd, 'ready')), 10_000);
    // A long grace: an agent that ignored SIGINT would be ended by SIGTERM only after it.
    await backend.stop(handle, { graceMs: 20_000 });
    expect(await ended).toMatchObject({ exitCode: null, signal: 'SIGINT' });
  }, 30_000);

  it('starts attempts side by side and tells each its own end', async () => {
    const backend = makeBackend(kind);
    const specs = Array.from({ length: 12 }, (_, i) => makeSpec(`sleep 0.0${i % 5}; exit ${i}`));
    const started = await Promise.all(specs.map((spec) => launch(backend, spec)));
    expect(new Set(started.map((h) => h.pid)).size).toBe(12);
    const exits = await Promise.all(started.map((handle, i) => backend.wait(handle, specs[i]!)));
    expect(exits.map((e) => e.exitCode)).toEqual(specs.map((_, i) => i));
  });

  it('starts a new launcher when its launcher is gone; a wrapper it had started runs on and its end still arrives', async () => {
    const backend = makeBackend(kind);
    const release = join(mkdtempSync(join(tmpdir(), 'teamline-release-')), 'go');
    folders.push(join(release, '..'));
    const first = makeSpec(`until [ -e '${release}' ]; do sleep 0.02; done; exit 4`);
    const running = await launch(backend, first);
    const launcherPid = findLauncher(running.pid);
    expect(launcherPid).toBeDefined();
    process.kill(launcherPid!, 'SIGKILL');
    // Reaped by us (its /proc entry gone): the backend has heard of its exit by then.
    expect(await waitUntil(() => !existsSync(`/proc/${launcherPid}`), 5_000)).toBe(true);
    const second = makeSpec('exit 5');
    const next = await launch(backend, second);
    expect((await backend.wait(next, second)).exitCode).toBe(5);
    expect(isProcessAlive(running.pid, running.pidStart)).toBe(true);
    writeFileSync(release, '');
    expect((await backend.wait(running, first)).exitCode).toBe(4);
  });

  it('leaves to execa a launch past the line limit; leaves out a name sh cannot pass on, as the wrapper would', async () => {
    const request = { cwd: '/', env: {}, attemptDir: '/a', stdinFile: '', file: 'sh', args: [], outputFile: '/a/out' };
    expect(makeLaunchLine(1, { ...request, env: { 'NOT-A-NAME': '1', OK: '2' } })).toContain("OK='2'");
    expect(makeLaunchLine(1, { ...request, env: { 'NOT-A-NAME': '1' } })).not.toContain('NOT-A-NAME');
    // Three arguments of 100 KB: past the line limit, each under the kernel's limit of one argument (128 KB).
    const long = Array.from({ length: Math.ceil(MAX_LAUNCH_LINE / 100_000) }, () => 'y'.repeat(100_000));
    expect(makeLaunchLine(1, { ...request, args: long })).toBeUndefined();
    expect(makeLaunchLine(1, request)).toMatch(/&\n$/);

    const backend = makeBackend(kind);
    const odd = makeSpec('echo "[$0]$ODD_OK"', [], { env: { 'ODD-NAME': 'v', ODD_OK: 'ok' } });
    const oddHandle = await launch(backend, odd);
    expect((await backend.wait(oddHandle, odd)).exitCode).toBe(0);
    expect(output(odd).trim()).toBe('[agent]ok');
    const longSpec = makeSpec('echo "[$0]$#:${#1}"', long);
    const longHandle = await launch(backend, longSpec);
    expect((await backend.wait(longHandle, longSpec)).exitCode).toBe(0);
    expect(output(longSpec).trim()).toBe(`[agent]${long.length}:100000`);
  });
});

describe('the perl launcher\'s lines', () => {
  it('refuses at once a launch whose output file cannot be opened, naming it, and runs nothing', async () => {
    const backend = makeBackend('perl');
    const spec = makeSpec('touch ran');
    // A folder where the output file goes: the shell's launcher could only time out on it.
    mkdirSync(join(spec.attemptDir, OUTPUT_FILE));
    await expect(backend.launch(spec)).rejects.toThrow(/could not start sh: output file: Is a directory/);
    expect(existsSync(join(spec.cwd, 'ran'))).toBe(false);
    expect(readdirSync(spec.attemptDir)).not.toContain('pid.json');
  });

  it('escapes backslashes, newlines and NULs in its fields, leaves out a name sh cannot pass on, and leaves a launch past the line limit to execa', () => {
    const request = { cwd: '/w', env: { 'NOT-A-NAME': '1', OK: 'a\\b\nc' }, attemptDir: '/a', stdinFile: '', file: 'sh', args: ['x\0y'], outputFile: '/a/out' };
    expect(makePerlLaunch(7, request)).toBe(['7', '/w', '/a/out', '1', 'OK=a\\\\b\\nc', '/a', '', '7', 'sh', 'x\\0y'].join('\0') + '\n');
    const long = Array.from({ length: Math.ceil(MAX_LAUNCH_LINE / 100_000) }, () => 'y'.repeat(100_000));
    expect(makePerlLaunch(1, { ...request, args: long })).toBeUndefined();
  });
});

// The launcher: the wrapper's parent, `sh -s` reading launches as commands, or `perl -e` its loop.
function findLauncher(wrapperPid: number): number | undefined {
  const parent = readParent(wrapperPid);
  return parent !== undefined && existsSync(`/proc/${parent}/cmdline`) && ['-s', '-e'].includes(readFileSync(`/proc/${parent}/cmdline`, 'utf8').split('\0')[1]!) ? parent : undefined;
}

function readParent(pid: number): number | undefined {
  return readStatField(pid, 1);
}

// A numeric field of /proc/<pid>/stat after the command name: 1 ppid, 2 pgrp, 3 session.
function readStatField(pid: number, index: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[index]);
  } catch {
    return undefined;
  }
}

describe('workers/launcher after its orchestrator died', () => {
  it.each(LAUNCHERS)('launches none of the lines still in its pipe (%s)', async (kind) => {
    const root = mkdtempSync(join(tmpdir(), 'teamline-launcher-orphan-'));
    folders.push(root);
    // An orchestrator stand-in: starts a backend, queues a launch, and is killed before the launcher reads it.
    const script = `
      const { createProcessBackend } = await import(${JSON.stringify(new URL('../../dist/workers/process.js', import.meta.url).href)});
      const backend = createProcessBackend(${kind === 'shell' ? "{ launcher: 'shell' }" : ''});
      const { mkdirSync } = await import('node:fs');
      const spec = (n) => { const dir = ${JSON.stringify(root)} + '/a' + n; mkdirSync(dir); return { runId: 'orphan', taskId: 't' + n, attempt: 1, worker: 'w', attemptDir: dir, cwd: ${JSON.stringify(root)}, command: { file: 'sh', args: ['-c', 'touch ran'] }, env: {} }; };
      await backend.launch(spec(1));
      process.stdout.write('first\\n');
      // Stop the launcher's reading for a while, queue the next launch, and die before it reads it.
      const launcher = ${'`'}\${(await import('node:fs')).readFileSync('/proc/self/task/' + process.pid + '/children', 'utf8').trim().split(' ')[0]}${'`'};
      process.kill(Number(launcher), 'SIGSTOP');
      void backend.launch(spec(2));
      setTimeout(() => { process.stdout.write(launcher + '\\n'); process.kill(process.pid, 'SIGKILL'); }, 100);
    `;
    const child = execa(process.execPath, ['--input-type=module', '-e', script], { reject: false, buffer: true });
    const result = await child;
    const launcher = Number(String(result.stdout).trim().split('\n')[1]);
    expect(String(result.stdout), String(result.stderr)).toContain('first');
    process.kill(launcher, 'SIGCONT');
    expect(await waitUntil(() => !existsSync(`/proc/${launcher}`) || readProcStat(launcher)?.state === 'Z', 5_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(join(root, 'a1', 'pid.json'))).toBe(true);
    expect(existsSync(join(root, 'a2', 'pid.json'))).toBe(false);
  });
  it('runs the agent of a wrapper that starts after its orchestrator died: its word on the channel no one reads does not end it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'teamline-launcher-orphan-'));
    folders.push(root);
    // The wrapper as the launcher starts it, fd 3 the launcher's channel to the orchestrator. The
    // channel's reader (this process, in the orchestrator's place) closes its end before the wrapper
    // starts: the wrapper waits for the word on its stdin, sent once the end is closed.
    const wrapper = makeWrapperScript({ output: 'inherit', notify: true });
    const child = spawn('sh', ['-c', 'read go; exec "$@"', 'sh', 'sh', '-c', wrapper, 'sh', root, '', '1', 'sh', '-c', 'touch ran; grep SigIgn /proc/$$/status', 'agent'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const out: string[] = [];
    child.stdout!.on('data', (chunk: Buffer) => out.push(String(chunk)));
    (child.stdio[3] as NodeJS.ReadableStream & { destroy(): void }).destroy();
    child.stdin!.end('go\n');
    expect(await ended).toEqual({ code: 0, signal: null });
    expect(existsSync(join(root, 'pid.json'))).toBe(true);
    expect(existsSync(join(root, 'ran'))).toBe(true);
    expect(JSON.parse(readFileSync(join(root, 'exit.json'), 'utf8'))).toEqual({ exitCode: 0, signal: null });
    // The agent starts with SIGPIPE as the wrapper had it (not ignored): bit 13 of its ignored signals.
    const ignored = BigInt(`0x${/SigIgn:\s*([0-9a-f]+)/.exec(out.join(''))![1]}`);
    expect(ignored & (1n << 12n)).toBe(0n);
  });
});

describe('closing the launcher', () => {
  it.each(LAUNCHERS)("resolves once the launcher (%s) has exited, so that nothing of the run outlives the orchestrator", async (kind) => {
    const backend = makeBackend(kind);
    const handle = await launch(backend, makeSpec('sleep 30'));
    // The wrapper's parent is the launcher: perl forked it; the shell's subshell execs env, setsid, then the wrapper.
    const launcher = readProcStat(handle.pid)!.ppid;
    const started = readProcStat(launcher)!.startTime;
    const program = kind === 'perl' ? [expect.stringMatching(/(^|\/)perl$/), '-e'] : [expect.stringMatching(/(^|\/)sh$/), '-s'];
    expect(readFileSync(`/proc/${launcher}/cmdline`, 'utf8').split('\0').slice(0, 2)).toEqual(program);
    signalGroup(handle.pgid, 'SIGKILL');
    await backend.close?.();
    expect(isProcessAlive(launcher, started)).toBe(false);
  });

  it('keeps the orchestrator alive while it waits for the shell: what follows the close still runs', async () => {
    const root = mkdtempSync(join(tmpdir(), 'teamline-launcher-close-'));
    folders.push(root);
    // An orchestrator stand-in whose last work is the close: nothing else holds its event loop (the
    // launcher and its pipes are unref'd), as at a run's end once its attempts ended.
    const script = `
      const { createProcessBackend } = await import(${JSON.stringify(new URL('../../dist/workers/process.js', import.meta.url).href)});
      const { existsSync, readFileSync } = await import('node:fs');
      const backend = createProcessBackend();
      const spec = { runId: 'close', taskId: 't1', attempt: 1, worker: 'w', attemptDir: ${JSON.stringify(root)}, cwd: ${JSON.stringify(root)}, command: { file: 'sh', args: ['-c', 'exit 0'] }, env: {} };
      const handle = await backend.launch(spec);
      await backend.wait(handle, spec);
      const launcher = readFileSync('/proc/self/task/' + process.pid + '/children', 'utf8').trim().split(' ')[0];
      await backend.close();
      process.stdout.write('closed ' + launcher + ' ' + (existsSync('/proc/' + launcher) ? 'alive' : 'gone') + '\\n');
    `;
    const result = await execa(process.execPath, ['--input-type=module', '-e', script], { reject: false });
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(String(result.stdout)).toMatch(/^closed \d+ gone$/);
  });
});

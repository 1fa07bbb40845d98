import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { AnyActorRef } from 'xstate';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// What happened, in order: fsyncs of files and of folders, and events handed to the machine with
// what the events folder held then (files in the log, files written but not yet in it).
const trace: string[] = [];
let failNext = false;
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const kind = (fd: number) => (fs.fstatSync(fd).isDirectory() ? 'sync folder' : 'sync file');
  const fsync = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
    trace.push(kind(fd));
    if (failNext) {
      failNext = false;
      return setImmediate(() => done(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' })));
    }
    fs.fsync(fd, done);
  };
  return { ...fs, default: { ...fs, fsync }, fsync };
});

const { createRun, runPaths } = await import('../../src/log/write.js');
const { EventLog } = await import('../../src/session/event-log.js');
const { EventGroup } = await import('../../src/log/event-group.js');
const { LogDigest } = await import('../../src/log/digest.js');
const { LogFold } = await import('../../src/session/log-fold.js');
const { readRunFiles } = await import('../../src/log/read.js');
const { foldOf, foldRun } = await import('../../src/log/fold/fold.js');
const { readViewSnapshot, SNAPSHOT_FILE } = await import('../../src/log/snapshot.js');
const { saveFold } = await import('../../src/log/read-view.js');
const { LogWriteError } = await import('../../src/sys/errors.js');
const { RUN_FIELDS } = await import('../helpers/runs.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'teamline-event-log-'));
  trace.length = 0;
  failNext = false;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// Files in the log (temporary files being written are not).
const folder = (eventsDir: string) => `${readdirSync(eventsDir).filter((n) => !n.startsWith('.')).length} in`;
const eventsIn = (eventsDir: string) => readdirSync(eventsDir).filter((n) => !n.startsWith('.')).sort().map((n) => n.split('-')[1]);

// A log over a new run, and a stand-in machine that writes two records for each input it is sent.
function makeLog() {
  const run = createRun(dir, RUN_FIELDS, { fsync: false });
  const { run_id } = run;
  const paths = runPaths(dir, run_id);
  const broken: unknown[] = [];
  const digest = new LogDigest();
  const log = new EventLog(run_id, pino({ enabled: false }), { fsync: true }, (error) => broken.push(error), new LogFold(run), new EventGroup(paths, run_id, { fsync: true, digest }), digest);
  const machine = {
    send: (event: { type: string }) => {
      trace.push(`machine gets ${event.type} (${folder(paths.eventsDir)})`);
      log.append({ event: 'stage_completed', stage: 'team-exec', iteration: 1, loop: 0 });
      log.append({ event: 'stage_entered', stage: 'team-verify', iteration: 1, loop: 0 });
    },
  };
  log.attach(machine as unknown as AnyActorRef);
  return { log, paths, broken, run };
}

describe('runtime/event-log', () => {
  it('writes an input before the machine sees it, and puts the step in the log with one folder fsync before any effect', async () => {
    const { log, paths } = makeLog();
    log.commit({ event: 'handoff_written', stage: 'team-exec', path: 'h.md', sha256: 'ab'.repeat(32) });
    expect(trace.filter((t) => t.startsWith('machine'))).toEqual(['machine gets handoff.written (0 in)']);
    expect(log.count).toBe(3);
    // An effect of the step starts only once this resolves.
    await log.flush();
    expect(trace.filter((t) => !t.startsWith('machine'))).toEqual(['sync file', 'sync file', 'sync file', 'sync folder']);
    expect(eventsIn(paths.eventsDir)).toEqual(['handoff_written', 'stage_completed', 'stage_entered']);
  });

  it('leaves a fact out of the log until the next flush, and a flush with nothing new syncs nothing', async () => {
    const { log, paths } = makeLog();
    log.append({ event: 'attempt_stalled', task_id: 't1', attempt: 1, silent_ms: 5 });
    expect(folder(paths.eventsDir)).toBe('0 in');
    await log.flush();
    await log.flush();
    expect(trace).toEqual(['sync file', 'sync folder']);
    expect(folder(paths.eventsDir)).toBe('1 in');
  });

  it('breaks for good when a flush fails: the flush rejects with the reason, later writes are refused, and it says so once', async () => {
    const { log, broken } = makeLog();
    failNext = true;
    log.append({ event: 'attempt_stalled', task_id: 't1', attempt: 1, silent_ms: 5 });
    await expect(log.flush()).rejects.toBeInstanceOf(LogWriteError);
    expect(log.intact).toBe(false);
    expect(() => log.append({ event: 'attempt_stalled', task_id: 't2', attempt: 1, silent_ms: 5 })).toThrow(LogWriteError);
    await expect(log.settled()).resolves.toBeUndefined();
    expect(broken).toHaveLength(1);
    expect(String(broken[0])).toMatch(/EIO/);
  });

  it('logs the failure of what waits for the log, and goes on', async () => {
    const { log } = makeLog();
    log.append({ event: 'attempt_stalled', task_id: 't1', attempt: 1, silent_ms: 5 });
    log.afterFlush(() => {
      throw new Error('a bug in a follow-up');
    });
    await log.flush();
    await new Promise((resolve) => setImmediate(resolve));
    log.append({ event: 'attempt_stalled', task_id: 't2', attempt: 1, silent_ms: 5 });
    await expect(log.flush()).resolves.toBeUndefined();
    expect(log.intact).toBe(true);
  });

  it('runs what waits for the log only once the events before it are in', async () => {
    const { log, paths } = makeLog();
    log.append({ event: 'attempt_stalled', task_id: 't1', attempt: 1, silent_ms: 5 });
    const seen: string[] = [];
    log.afterFlush(() => seen.push(folder(paths.eventsDir)));
    expect(seen).toEqual([]);
    await log.flush();
    expect(seen).toEqual(['1 in']);
  });
  it('folds an event once a flush made it durable, to the view a read of the log gives, and saves that fold as the snapshot', async () => {
    const { log, paths } = makeLog();
    log.commit({ event: 'handoff_written', stage: 'team-exec', path: 'h.md', sha256: 'ab'.repeat(32) });
    expect(log.fold.state.eventCount).toBe(0);
    await log.flush();
    const files = readRunFiles(paths);
    expect(log.fold.state.eventCount).toBe(files.events.length);
    expect(log.fold.view(dir)).toEqual(foldRun(files, dir));
    log.fold.save(paths);
    const names = readdirSync(paths.eventsDir).filter((n) => !n.startsWith('.')).sort();
    expect(readViewSnapshot(paths, names)?.through).toBe(names.at(-1));
  });

  it('saves the snapshot of its own appends byte for byte as a takeover saves it from the files read back', async () => {
    const { log, paths } = makeLog();
    // Objects in another key order than the schema's, as the code that starts a run and a tmux pane makes them.
    const limits = { shutdownTimeoutMs: 3, statusCheckMs: 1, reassignMs: 2, maxTaskAttempts: 2, maxIterations: 10, maxFixLoops: 3, maxTasks: 50 };
    const isolation = { userBranch: 'main', branch: 'team/r', reason: 'a git repository', mode: 'worktree' as const, base: 'abc' };
    log.append({ event: 'run_started', mode: 'team', task: 'x', workers: 1, agentType: 'executor', limits, gates: [], agents: {}, defaultAgent: 'sim', session: '', parent_session: '', workerMode: 'tmux', keepPanes: false, isolation });
    log.append({ event: 'attempt_spawned', task_id: 't1', attempt: 1, worker: 'worker-1', handle: { backend: 'tmux', server: 's', socketDir: '/tmp/x', paneId: '%1', window: 'worker-1', pid: 7, pidStart: 8, pgid: 7 } });
    log.append({ event: 'run_completed', summary: 'ok' });
    await log.flush();
    log.fold.save(paths);
    const saved = readFileSync(join(paths.runDir, SNAPSHOT_FILE), 'utf8');
    const files = readRunFiles(paths);
    saveFold(paths, foldOf(files.run, files.events), files, dir);
    expect(readFileSync(join(paths.runDir, SNAPSHOT_FILE), 'utf8')).toBe(saved);
  });

  it('leaves out of the fold the events of a commit that failed', async () => {
    const { log } = makeLog();
    log.append({ event: 'attempt_stalled', task_id: 't1', attempt: 1, silent_ms: 5 });
    await log.flush();
    failNext = true;
    log.append({ event: 'attempt_stalled', task_id: 't2', attempt: 1, silent_ms: 5 });
    await expect(log.flush()).rejects.toBeInstanceOf(LogWriteError);
    expect([...log.fold.state.reports.stalled]).toEqual(['t1#1']);
    expect(log.fold.state.eventCount).toBe(1);
  });
});

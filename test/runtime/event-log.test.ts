import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { AnyActorRef } from 'xstate';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// What happened, in order: fsyncs of files and of folders, and events handed to the machine.
const trace: string[] = [];
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const fsyncSync = (fd: number) => {
    trace.push(fs.fstatSync(fd).isDirectory() ? 'sync folder' : 'sync file');
    fs.fsyncSync(fd);
  };
  return { ...fs, default: { ...fs, fsyncSync }, fsyncSync };
});

const { createRun, runPaths } = await import('../../src/checkpoint/store.js');
const { EventLog } = await import('../../src/runtime/event-log.js');
const { RUN_FIELDS } = await import('../helpers/runs.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'teamline-event-log-'));
  trace.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// A log over a new run, and a stand-in machine that writes two records for each input it is sent.
function makeLog() {
  const { run_id } = createRun(dir, RUN_FIELDS, { fsync: false });
  const paths = runPaths(dir, run_id);
  const log = new EventLog(paths, run_id, pino({ enabled: false }), { fsync: true });
  const machine = {
    send: (event: { type: string }) => {
      trace.push(`machine gets ${event.type}`);
      log.append({ event: 'stage_completed', stage: 'team-exec', iteration: 1, loop: 0 });
      log.append({ event: 'stage_entered', stage: 'team-verify', iteration: 1, loop: 0 });
    },
  };
  log.attach(machine as unknown as AnyActorRef);
  return { log, paths };
}

describe('runtime/event-log', () => {
  it('writes an input before the machine sees it and makes the step durable with one folder fsync at its end', () => {
    const { log, paths } = makeLog();
    log.commit({ event: 'handoff_written', stage: 'team-exec', path: 'h.md', sha256: 'ab'.repeat(32) });
    expect(trace).toEqual(['sync file', 'machine gets handoff.written', 'sync file', 'sync file', 'sync folder']);
    expect(readdirSync(paths.eventsDir)).toHaveLength(3);
  });

  it('leaves a fact undurable until the next flush, which the effects call before they start', () => {
    const { log } = makeLog();
    log.append({ event: 'attempt_stalled', task_id: 't1', attempt: 1, silent_ms: 5 });
    expect(trace).toEqual(['sync file']);
    log.flush();
    log.flush();
    expect(trace).toEqual(['sync file', 'sync folder']);
  });
});

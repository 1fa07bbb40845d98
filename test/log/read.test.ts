import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, renameSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRunFiles } from '../../src/log/read.js';
import { UnreadableRunError, UsageError } from '../../src/sys/errors.js';
import { appendApproval, appendEvent } from '../../src/log/write.js';
import { eventFileName, taskEvent } from '../helpers/events.js';
import { finished, makeRun, removeRuns, started } from '../helpers/runs.js';

afterEach(removeRuns);

const NO_FSYNC = { fsync: false };
const SHA = 'a'.repeat(64);

describe('checkpoint/read', () => {
  it('reads run.json, and each event with its file name, in the order written', () => {
    const { runId, paths } = makeRun();
    appendEvent(paths, runId, started('t1') as never, NO_FSYNC);
    appendEvent(paths, runId, finished('t1', 1, 'completed') as never, NO_FSYNC);
    appendEvent(paths, runId, { event: 'run_completed', summary: 'ok' }, NO_FSYNC);
    const files = readRunFiles(paths);
    expect(files.run.run_id).toBe(runId);
    expect(files.events.map((e) => e.event)).toEqual(['task_started', 'task_finished', 'run_completed']);
    expect(files.events.every((e) => /^\d{8}T\d{12}Z-[a-z_]+-.+\.json$/.test(e.file))).toBe(true);
    expect(files.problems).toEqual([]);
  });

  it('orders events by file name, not by when the file appeared', () => {
    const { runId, paths } = makeRun();
    const early = eventFileName('task_started', 't1', 1);
    const late = eventFileName('task_finished', 't1', 1);
    writeFileSync(join(paths.eventsDir, late), JSON.stringify(taskEvent(runId)));
    writeFileSync(join(paths.eventsDir, early), JSON.stringify(taskEvent(runId, { event: 'task_started', status: 'running' })));
    expect(readRunFiles(paths).events.map((e) => e.file)).toEqual([early, late]);
  });

  it('reads approvals', () => {
    const { paths } = makeRun();
    appendApproval(paths, { stage: 'team-plan', artifact: 'plan.md', sha256: SHA, by: 'ana', approved_at: '2026-10-28T13:10:16.577Z', note: '' }, NO_FSYNC);
    expect(readRunFiles(paths).approvals).toMatchObject([{ stage: 'team-plan', artifact: 'plan.md', sha256: SHA, by: 'ana' }]);
  });

  it('reports an approval with a bad sha256 and leaves it out', () => {
    const { paths } = makeRun();
    const name = '20261028T131016577943Z-team-plan-abc123.json';
    writeFileSync(join(paths.approvalsDir, name), JSON.stringify({ stage: 'team-plan', artifact: 'plan.md', sha256: 'nope', by: 'ana', approved_at: 'x', note: '' }));
    const files = readRunFiles(paths);
    expect(files.approvals).toEqual([]);
    expect(files.problems).toEqual([{ file: `approvals/${name}`, reason: expect.stringMatching(/^invalid approval: sha256: .+; ignored$/) }]);
  });

  // An empty log would read as a run that never started: the missing folder is named instead.
  it('stops with the folder named when the events folder is gone, never reading an empty log', () => {
    const { paths } = makeRun();
    renameSync(paths.eventsDir, `${paths.eventsDir}-moved`);
    expect(() => readRunFiles(paths)).toThrow(new UnreadableRunError(`${paths.eventsDir} cannot be read (ENOENT); the run's events cannot be read`));
  });

  it('stops with the folder named when the approvals folder is a file', () => {
    const { paths } = makeRun();
    renameSync(paths.approvalsDir, `${paths.approvalsDir}-moved`);
    writeFileSync(paths.approvalsDir, '');
    expect(() => readRunFiles(paths)).toThrow(new UnreadableRunError(`${paths.approvalsDir} cannot be read (ENOTDIR); the run's approvals cannot be read`));
  });

  it('refuses a task event with a field the seed does not have', () => {
    const { runId, paths } = makeRun();
    const name = eventFileName('task_finished', 't1', 1);
    writeFileSync(join(paths.eventsDir, name), JSON.stringify(taskEvent(runId, { verdict: 'trust me' })));
    expect(readRunFiles(paths).problems).toEqual([{ file: `events/${name}`, reason: 'invalid task_finished event: (root): Unrecognized key: "verdict"; ignored' }]);
  });

  it('refuses a task_finished whose status is not terminal', () => {
    const { runId, paths } = makeRun();
    const name = eventFileName('task_finished', 't1', 1);
    writeFileSync(join(paths.eventsDir, name), JSON.stringify(taskEvent(runId, { status: 'running' })));
    const files = readRunFiles(paths);
    expect(files.events).toEqual([]);
    expect(files.problems[0]!.reason).toMatch(/^invalid task_finished event: status: /);
  });

  it('reports JSON that is not an object as an unknown event', () => {
    const { paths } = makeRun();
    const name = eventFileName('task_finished', 't1', 1);
    writeFileSync(join(paths.eventsDir, name), 'null\n');
    expect(readRunFiles(paths).problems).toEqual([{ file: `events/${name}`, reason: 'unknown event null; ignored' }]);
  });

  it('reports a file of blanks as empty', () => {
    const { paths } = makeRun();
    const name = eventFileName('task_finished', 't1', 1);
    writeFileSync(join(paths.eventsDir, name), ' \n\n');
    expect(readRunFiles(paths).problems).toEqual([{ file: `events/${name}`, reason: 'empty file; ignored' }]);
  });

  it('keeps reading the good files around a bad one', () => {
    const { runId, paths } = makeRun();
    appendEvent(paths, runId, started('t1') as never, NO_FSYNC);
    writeFileSync(join(paths.eventsDir, eventFileName('task_finished', 't1', 1)), '{"event":');
    appendEvent(paths, runId, started('t2') as never, NO_FSYNC);
    const files = readRunFiles(paths);
    expect(files.events.map((e) => (e as { task_id: string }).task_id)).toEqual(['t1', 't2']);
    expect(files.problems).toHaveLength(1);
  });

  it('reports a folder under an event name as not a regular file and reads on', () => {
    const { runId, paths } = makeRun();
    const name = eventFileName('task_finished', 't1', 1);
    mkdirSync(join(paths.eventsDir, name));
    appendEvent(paths, runId, started('t2') as never, NO_FSYNC);
    const files = readRunFiles(paths);
    expect(files.problems).toEqual([{ file: `events/${name}`, reason: 'not a regular file (a folder); ignored' }]);
    expect(files.events).toHaveLength(1);
  });

  // Event files take a short read (one positioned read); a FIFO that a writer holds open with a valid
  // event in it is still refused as a FIFO, never read for what the writer gave.
  it('refuses a FIFO under an event name even while a writer holds a valid event in it', () => {
    const { runId, paths } = makeRun();
    const name = eventFileName('task_started', 't1', 1);
    const fifo = join(paths.eventsDir, name);
    execFileSync('mkfifo', [fifo]);
    // Opened for reading and writing, a FIFO opens at once on Linux and keeps what is written to it.
    const fd = openSync(fifo, constants.O_RDWR);
    try {
      writeSync(fd, JSON.stringify(taskEvent(runId, { event: 'task_started', status: 'running' })));
      const files = readRunFiles(paths);
      expect(files.events).toEqual([]);
      expect(files.problems).toEqual([{ file: `events/${name}`, reason: 'not a regular file (a FIFO); ignored' }]);
    } finally {
      closeSync(fd);
    }
  });

  it('refuses a link under an event name, and reads an event file larger than the short read whole', () => {
    const { runId, paths } = makeRun();
    const target = join(paths.runDir, 'elsewhere.json');
    writeFileSync(target, JSON.stringify(taskEvent(runId, { event: 'task_started', status: 'running' })));
    const link = eventFileName('task_started', 't1', 1);
    symlinkSync(target, join(paths.eventsDir, link));
    // 100 KB of evidence: more than the 64 KB read that serves the usual event file.
    const big = eventFileName('task_finished', 't1', 1);
    writeFileSync(join(paths.eventsDir, big), JSON.stringify(taskEvent(runId, { evidence: 'e'.repeat(100_000) })));
    const files = readRunFiles(paths);
    expect(files.problems).toEqual([{ file: `events/${link}`, reason: 'a symbolic link (never followed); ignored' }]);
    expect(files.events.map((e) => [e.file, (e as { evidence: string }).evidence.length])).toEqual([[big, 100_000]]);
  });

  it('stops with the file named when run.json is damaged', () => {
    const { paths } = makeRun();
    writeFileSync(paths.runJson, '{"run_id": ');
    expect(() => readRunFiles(paths)).toThrow(UsageError);
    expect(() => readRunFiles(paths)).toThrow(`${paths.runJson} is unreadable or not valid JSON (`);
  });
});

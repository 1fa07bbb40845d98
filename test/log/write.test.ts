import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendEvent, createRun, readCurrentRunId, resolveRun, runPaths } from '../../src/log/write.js';
import { UsageError } from '../../src/sys/errors.js';
import { RUN_FIELDS } from '../helpers/runs.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function makeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-store-'));
  dirs.push(dir);
  return dir;
}

describe('checkpoint/store', () => {
  it('creates a run with its folders, run.json and current', () => {
    const dir = makeDir();
    const record = createRun(dir, RUN_FIELDS, { fsync: false });
    const paths = runPaths(dir, record.run_id);
    expect(record.run_id).toMatch(/^\d{8}T\d{12}Z-[0-9a-f]{6}$/);
    expect(JSON.parse(readFileSync(paths.runJson, 'utf8'))).toEqual(record);
    for (const folder of [paths.eventsDir, paths.approvalsDir, paths.handoffsDir, paths.attemptsDir]) expect(existsSync(folder)).toBe(true);
    expect(readCurrentRunId(dir)).toBe(record.run_id);
  });

  it('points current at the latest run', () => {
    const dir = makeDir();
    createRun(dir, RUN_FIELDS, { fsync: false });
    const second = createRun(dir, RUN_FIELDS, { fsync: false });
    expect(readCurrentRunId(dir)).toBe(second.run_id);
  });

  it('names a task event file by stamp, event, task, attempt and token', () => {
    const dir = makeDir();
    const { run_id } = createRun(dir, RUN_FIELDS, { fsync: false });
    const paths = runPaths(dir, run_id);
    appendEvent(paths, run_id, { event: 'task_retry', task_id: 'api.v2_fix', attempt: 3, reason: 'flaky' }, { fsync: false });
    expect(readdirSync(paths.eventsDir)).toEqual([expect.stringMatching(/^\d{8}T\d{12}Z-task_retry-api\.v2_fix-a3-[0-9a-z]{6}\.json$/)]);
  });

  it('names a run event file with task run and attempt 0', () => {
    const dir = makeDir();
    const { run_id } = createRun(dir, RUN_FIELDS, { fsync: false });
    const paths = runPaths(dir, run_id);
    appendEvent(paths, run_id, { event: 'run_completed', summary: 'done' }, { fsync: false });
    expect(readdirSync(paths.eventsDir)).toEqual([expect.stringMatching(/^\d{8}T\d{12}Z-run_completed-run-a0-[0-9a-z]{6}\.json$/)]);
  });

  it('fills in at and run_id and writes the event as one JSON line', () => {
    const dir = makeDir();
    const { run_id } = createRun(dir, RUN_FIELDS, { fsync: false });
    const paths = runPaths(dir, run_id);
    const written = appendEvent(paths, run_id, { event: 'run_failed', reason: 'verify failed 3 times' }, { fsync: true });
    const [name] = readdirSync(paths.eventsDir);
    const text = readFileSync(join(paths.eventsDir, name!), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(2);
    expect(JSON.parse(text)).toEqual({ event: 'run_failed', reason: 'verify failed 3 times', at: written.at, run_id });
  });

  it('resolves the latest run when none is named', () => {
    const dir = makeDir();
    const { run_id } = createRun(dir, RUN_FIELDS, { fsync: false });
    expect(resolveRun(dir, undefined)).toMatchObject({ runId: run_id, runDir: join(dir, '.team', 'runs', run_id) });
  });

  it('refuses to resolve a run in a project with none', () => {
    const dir = makeDir();
    expect(() => resolveRun(dir, undefined)).toThrow(UsageError);
    expect(() => resolveRun(dir, undefined)).toThrow(`no run in ${dir}: .team/runs has none`);
  });

  it('refuses to resolve a run that does not exist', () => {
    const dir = makeDir();
    createRun(dir, RUN_FIELDS, { fsync: false });
    expect(() => resolveRun(dir, '20200101T000000000000Z-abcdef')).toThrow(`--run: no run 20200101T000000000000Z-abcdef in ${join(dir, '.team', 'runs')}`);
  });

  it('refuses a run id that could escape the runs folder', () => {
    const dir = makeDir();
    expect(() => resolveRun(dir, '../..')).toThrow('--run: "../.." is not a valid run id');
  });
});

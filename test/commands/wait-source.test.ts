// What `team wait` folds of a run of the files: it folds again only when the events folder holds
// another number of events, and an event still under its temporary name is not one yet; so the
// run's end, renamed into place after a fold that saw its temporary file, is seen.
import { readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendEvent, runPaths } from '../../src/log/write.js';
import { waitSource } from '../../src/commands/follow/wait.js';
import { FileStore } from '../../src/store/files/store.js';
import { TEMP_PREFIX } from '../../src/sys/atomic.js';
import { makeProject, removeProjects } from '../helpers/project.js';
import { RUN_FIELDS } from '../store/records.js';

afterAll(removeProjects);

describe('team wait on the files', () => {
  it('sees a run end whose last event was being written at the fold before', async () => {
    const project = makeProject();
    await new FileStore(project.dir, { fsync: false }).createRun(RUN_FIELDS, 'run-1');
    const paths = runPaths(project.dir, 'run-1');
    const source = waitSource(new FileStore(project.dir, { fsync: false }), 'run-1', project.dir);
    expect((await source.view()).status).toBe('running');
    // The end as the writer leaves it for a moment: written and synced, not yet renamed.
    appendEvent(paths, 'run-1', { event: 'run_failed', reason: 'verify failed' }, { fsync: false });
    const [name] = readdirSync(paths.eventsDir).filter((n) => n.includes('run_failed'));
    const temp = join(paths.eventsDir, `${TEMP_PREFIX}abc123-${name}.tmp`);
    renameSync(join(paths.eventsDir, name!), temp);
    expect((await source.view()).status).toBe('running');
    renameSync(temp, join(paths.eventsDir, name!));
    expect((await source.view()).status).toBe('failed');
  });

  it('folds afresh when asked, before it says nobody drives the run, whatever the count of events says', async () => {
    const project = makeProject();
    await new FileStore(project.dir, { fsync: false }).createRun(RUN_FIELDS, 'run-1');
    const paths = runPaths(project.dir, 'run-1');
    appendEvent(paths, 'run-1', { event: 'task_retry', task_id: 't1', attempt: 2, reason: 'flaky' }, { fsync: false });
    const source = waitSource(new FileStore(project.dir, { fsync: false }), 'run-1', project.dir);
    expect((await source.view()).status).toBe('running');
    // The same number of events, one of them the end: only a fresh fold sees it.
    const [retry] = readdirSync(paths.eventsDir).filter((n) => n.includes('task_retry'));
    appendEvent(paths, 'run-1', { event: 'run_failed', reason: 'verify failed' }, { fsync: false });
    rmSync(join(paths.eventsDir, retry!));
    expect((await source.view()).status).toBe('running');
    expect((await source.view(true)).status).toBe('failed');
  });
});

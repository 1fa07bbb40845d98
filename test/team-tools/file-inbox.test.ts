// The file store's writer inbox against files a worker could leave there: a FIFO, a link, a file
// too big, a file that is not JSON. Each is reported unreadable at once, never waited on.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/store/files/store.js';
import { INBOX_DIR } from '../../src/store/files/inbox.js';
import { RUN_FIELDS } from '../store/records.js';

describe('src/store/files/inbox', () => {
  let project: string;
  beforeEach(() => {
    project = mkdtempSync(join(tmpdir(), 'teamline-inbox-'));
  });
  afterEach(() => rmSync(project, { recursive: true, force: true }));

  it('reports a FIFO, a link, an oversized file and a non-request as unreadable, without waiting', async () => {
    const store = new FileStore(project, { fsync: false });
    const run = await store.createRun(RUN_FIELDS);
    await store.postRequest(run.run_id, { kind: 'message', key: 'good', body: { text: 'hi' } });
    const dir = join(store.paths(run.run_id).runDir, INBOX_DIR);
    mkdirSync(dir, { recursive: true });
    execFileSync('mkfifo', [join(dir, '20260101T000000000000Z-fifo.json')]);
    writeFileSync(join(project, 'elsewhere.json'), JSON.stringify({ kind: 'message', key: 'link', body: {}, at: 'x' }));
    symlinkSync(join(project, 'elsewhere.json'), join(dir, '20260101T000000000001Z-link.json'));
    writeFileSync(join(dir, '20260101T000000000002Z-big.json'), 'x'.repeat(70_000));
    writeFileSync(join(dir, '20260101T000000000003Z-junk.json'), '{"kind": 1}');
    const started = Date.now();
    const read = await store.pendingRequests(run.run_id);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(read.requests.map((r) => r.key)).toEqual(['good']);
    expect(read.unreadable.map((u) => u.id).sort()).toEqual(['20260101T000000000000Z-fifo.json', '20260101T000000000001Z-link.json', '20260101T000000000002Z-big.json', '20260101T000000000003Z-junk.json']);
    for (const bad of read.unreadable) await store.removeRequest(run.run_id, bad.id);
    expect((await store.pendingRequests(run.run_id)).unreadable).toEqual([]);
  });
});

// One log written to both stores: a fresh database of the test file's cluster and a project's files.
import { FileStore } from '../../src/store/files/store.js';
import { PgStore } from '../../src/store/pg/store.js';
import type { RunStore } from '../../src/store/types.js';
import { Driver } from '../machines/drive.js';
import { toExec, toVerify, verifyOnce } from '../machines/routes.js';
import { makeDatabase } from './pg-fixture.js';
import { appendSteps, RUN_FIELDS, toSteps } from './records.js';

// A run whose task failed once, was retried and passed verify, written to `store` as `runId`.
export async function writeRun(store: RunStore, runId: string): Promise<void> {
  await store.createRun(RUN_FIELDS, runId);
  await appendSteps(store, runId, toSteps(verifyOnce(toVerify(toExec(new Driver()), { t1: 1 }), 'pass').log));
}

// The same log in a new database of the cluster at `clusterUrl` and in `project`'s files; returns the database's URL.
export async function bothStores(clusterUrl: string, project: string, runId: string): Promise<string> {
  const url = await makeDatabase(clusterUrl);
  const pg = await PgStore.open(url);
  await writeRun(pg, runId);
  await pg.close();
  await writeRun(new FileStore(project, { fsync: false }), runId);
  return url;
}

// A URL as messages show it: the fixture's password hidden.
export const hidden = (url: string) => url.replace(/:[0-9a-f]{32}@/, ':***@');

// The store conformance suite, continued: the writer inbox (src/store/inbox.ts), how a process that
// is not the run's writer leaves it a request.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/sys/errors.js';
import type { StoreFixture } from './conformance.js';
import { RUN_FIELDS } from './records.js';

// Registers the behaviours; `fixture` gives the test's fresh store.
export function inboxConformance(fixture: () => StoreFixture): void {
  describe('the writer inbox', () => {
    it('gives back the requests in the order posted, each until it is removed', async () => {
      const { store } = fixture();
      const run = await store.createRun(RUN_FIELDS);
      for (const n of [1, 2, 3]) await store.postRequest(run.run_id, { kind: 'message', key: `say-${n}`, body: { to: 'worker-1', text: `hello ${n}` } });
      const read = await store.pendingRequests(run.run_id);
      expect(read.unreadable).toEqual([]);
      expect(read.requests.map((r) => [r.kind, r.key, r.body])).toEqual([1, 2, 3].map((n) => ['message', `say-${n}`, { to: 'worker-1', text: `hello ${n}` }]));
      expect(read.requests.every((r) => !Number.isNaN(Date.parse(r.at)))).toBe(true);
      await store.removeRequest(run.run_id, read.requests[1]!.id);
      expect((await store.pendingRequests(run.run_id)).requests.map((r) => r.key)).toEqual(['say-1', 'say-3']);
    });

    it('keeps each run’s requests to that run', async () => {
      const { store } = fixture();
      const a = await store.createRun(RUN_FIELDS, 'run-a');
      const b = await store.createRun(RUN_FIELDS, 'run-b');
      await store.postRequest(a.run_id, { kind: 'message', key: 'k1', body: {} });
      expect((await store.pendingRequests(b.run_id)).requests).toEqual([]);
      expect((await store.pendingRequests(a.run_id)).requests.map((r) => r.key)).toEqual(['k1']);
    });

    it('refuses a request with a bad key or kind, or to a run it lacks, naming what is wrong', async () => {
      const { store } = fixture();
      const run = await store.createRun(RUN_FIELDS);
      await expect(store.postRequest(run.run_id, { kind: 'message', key: '../x', body: {} })).rejects.toThrow(/a request to the run's writer is invalid: .*\n.*→ at key/);
      await expect(store.postRequest(run.run_id, { kind: 'Bad Kind', key: 'k', body: {} })).rejects.toThrow(/→ at kind/);
      await expect(store.postRequest(run.run_id, { kind: 'message', key: 'k', body: { text: 'x'.repeat(70_000) } })).rejects.toThrow(/over 65536 bytes/);
      await expect(store.postRequest('no-such-run', { kind: 'message', key: 'k', body: {} })).rejects.toBeInstanceOf(UsageError);
      expect((await store.pendingRequests(run.run_id)).requests).toEqual([]);
    });
  });
}

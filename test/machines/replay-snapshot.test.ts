import { describe, expect, it } from 'vitest';
import type { TeamEvent } from '../../src/log/schema.js';
import type { MachineState } from '../../src/session/machine-snapshot.js';
import { replayRun } from '../../src/session/replay.js';
import { RECORDED_ROUTES as ROUTES } from './recorded-routes.js';

// The machine state after the first `seen` events, as a snapshot file holds it (JSON, no inPlace).
function savedAfter(log: TeamEvent[], seen: number): { state: MachineState; seen: number } | undefined {
  const replay = replayRun(log.slice(0, seen));
  // A live run saves only between steps, when the log holds every record the machine made.
  if (replay.pending.length > 0) return undefined;
  const { inPlace: _inPlace, ...context } = replay.snapshot.context;
  return { state: JSON.parse(JSON.stringify({ value: replay.snapshot.value, context })) as MachineState, seen };
}

describe('replayRun from a machine snapshot', () => {
  for (const [name, route] of Object.entries(ROUTES)) {
    it(`ends where the replay of the whole log ends, from a snapshot at every step of ${name}`, () => {
      const { log } = route();
      const whole = replayRun(log);
      let tried = 0;
      for (let seen = 1; seen <= log.length; seen++) {
        const from = savedAfter(log, seen);
        if (!from) continue;
        tried += 1;
        const replay = replayRun(log, from);
        const where = `snapshot after event ${seen} (${log[seen - 1]!.event})`;
        expect(replay.snapshot.value, where).toEqual(whole.snapshot.value);
        expect(replay.snapshot.context, where).toEqual(whole.snapshot.context);
        expect(replay.pending, where).toEqual(whole.pending);
      }
      expect(tried).toBeGreaterThan(log.length / 3);
    });
  }

  it('starts from the snapshot\'s state and replays only the events after it', () => {
    const { log } = ROUTES['a cancel while tasks run']!();
    const from = savedAfter(log, 3)!;
    from.state.context.task = 'a mark only the snapshot holds';
    const replay = replayRun(log, from);
    expect(replay.snapshot.context.task).toBe('a mark only the snapshot holds');
    expect(replay.snapshot.value).toEqual(replayRun(log).snapshot.value);
  });

  it('still finds a record after the snapshot that the machine would not make', () => {
    const { log } = ROUTES['a diamond graph on 2 workers with a retried task and 2 fix loops']!();
    const last = log.map((e) => e.event).lastIndexOf('task_started');
    const from = savedAfter(log, last - 3) ?? savedAfter(log, last - 2) ?? savedAfter(log, last - 1);
    expect(from).toBeDefined();
    const altered = log.map((e, i) => (i === last ? ({ ...e, attempt: 7 } as TeamEvent) : e));
    expect(() => replayRun(altered, from)).toThrow(/determinism violation.*task_started/);
  });
});

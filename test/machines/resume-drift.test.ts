import { describe, expect, it } from 'vitest';
import type { TeamEvent } from '../../src/log/schema.js';
import { replayRun } from '../../src/session/replay.js';
import { resumeAt } from './resume.js';
import { RECORDED_ROUTES } from './recorded-routes.js';

const fixTasks = (log: TeamEvent[]) => log.flatMap((e) => (e.event === 'tasks_assigned' ? e.tasks.map((t) => t.task_id) : [])).filter((id) => id.includes('fix'));

describe('runtime.resume (a takeover at every recorded transition)', () => {
  for (const [name, route] of Object.entries(RECORDED_ROUTES)) {
    it(`leaves the state of a fresh fold and a log that replays, at every cut of ${name}`, () => {
      const original = route();
      for (let cut = 1; cut <= original.log.length; cut++) {
        const resumed = resumeAt(original.log, cut);
        const where = `cut after event ${cut} (${original.log[cut - 1]!.event})`;
        expect(resumed.resumeRecords, where).toEqual([]);
        expect(resumed.afterResume.context, where).toEqual(resumed.folded.context);
        expect(resumed.afterResume.value, where).toEqual(resumed.folded.value);
        const replay = replayRun(resumed.log);
        expect(replay.pending, where).toEqual([]);
        expect(replay.snapshot.value, where).toEqual(original.snapshot.value);
        expect(replay.snapshot.context.defects, where).toEqual(original.context.defects);
        expect(fixTasks(resumed.log), where).toEqual(fixTasks(original.log));
        expect(resumed.log.filter((e) => e.event === 'fix_loop_started'), where).toHaveLength(original.log.filter((e) => e.event === 'fix_loop_started').length);
      }
    });
  }
});

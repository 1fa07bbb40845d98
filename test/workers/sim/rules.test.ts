import { describe, expect, it } from 'vitest';
import { resolveBehaviour } from '../../../workers/sim/rules.js';
import { parseScenario } from '../../../workers/sim/scenario.js';
import { parseTaskId } from '../../../workers/sim/task-id.js';

const scenario = parseScenario(
  {
    defaults: { sleepMs: 100 },
    stages: { 'team-exec': { sleepMs: 200, heartbeatMs: 50 } },
    rules: [
      { match: { stage: 'team-exec', task: 't2', attempt: 1 }, do: { fail: true } },
      { match: { task: 't2' }, do: { exitCode: 3 } },
      { match: { task: 'fix-*', iteration: 2 }, do: { hang: true } },
    ],
  },
  'test',
);

function behaviourOf(stage: 'team-exec' | 'team-fix' | 'team-plan', id: string, attempt = 1) {
  return resolveBehaviour(scenario, { stage, task: parseTaskId(id), attempt });
}

describe('rules', () => {
  it('uses the first matching rule over the stage defaults over the global defaults', () => {
    expect(behaviourOf('team-exec', 't2')).toEqual({ sleepMs: 200, heartbeatMs: 50, fail: true });
    expect(behaviourOf('team-exec', 't2', 2)).toEqual({ sleepMs: 200, heartbeatMs: 50, exitCode: 3 });
    expect(behaviourOf('team-plan', 'plan')).toEqual({ sleepMs: 100 });
  });

  it('matches a task rule against the id with or without its iteration prefix', () => {
    expect(behaviourOf('team-exec', 'i2.t2')).toMatchObject({ fail: true });
  });

  it('matches a star glob and narrows by iteration', () => {
    expect(behaviourOf('team-fix', 'i2.fix-1-d1')).toMatchObject({ hang: true });
    expect(behaviourOf('team-fix', 'fix-1-d1')).toEqual({ sleepMs: 100 });
  });

  it('treats glob characters other than the star literally', () => {
    const literal = parseScenario({ rules: [{ match: { task: 't.' }, do: { fail: true } }] }, 'test');
    expect(resolveBehaviour(literal, { stage: 'team-exec', task: parseTaskId('t1'), attempt: 1 })).toEqual({});
  });
});

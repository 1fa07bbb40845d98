import { afterEach, describe, expect, it } from 'vitest';
import { makeProject, removeProjects } from '../helpers/project.js';

afterEach(removeProjects);

describe('team state start-task', () => {
  it('lets exactly one of several simultaneous writers start an attempt', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => project.team('state', 'start-task', '--run', runId, '--task', 't1', '--stage', 'team-exec', '--agent', 'a')),
    );
    expect(results.filter((r) => r.exitCode === 0)).toHaveLength(1);
    for (const refused of results.filter((r) => r.exitCode !== 0)) {
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toMatch(/task t1 attempt 1 (was started by another writer|is still running)/);
    }
    expect(project.listEvents(runId).filter((name) => name.includes('-task_started-t1-a1-'))).toHaveLength(1);
  });
});

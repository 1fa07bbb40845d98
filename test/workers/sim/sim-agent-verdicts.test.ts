import { beforeAll, describe, expect, it } from 'vitest';
import { ensureSimBuilt, runSim, useSimFolders } from './run-sim.js';

describe('sim-agent verdicts', () => {
  beforeAll(ensureSimBuilt);
  const project = useSimFolders();

  it('fails the first M verify passes of each iteration with the scenario defects', async () => {
    const demo = project();
    for (const task of ['verify-1', 'verify-2', 'i2.verify-1']) await runSim(demo, { stage: 'team-verify', task });
    const defect = { id: 'd1', description: 'Empty strings pass the body validation.' };
    expect(demo.readResult('verify-1')).toMatchObject({ verdict: 'fail', defects: [{ ...defect, task: 't2' }] });
    expect(demo.readResult('verify-2')).toMatchObject({ verdict: 'pass', defects: [] });
    expect(demo.readResult('i2.verify-1')).toMatchObject({ verdict: 'fail', defects: [{ ...defect, task: 'i2.t2' }] });
  });

  it('fails every verify pass when told always', async () => {
    const stubborn = project('verify-always-fails.json');
    await runSim(stubborn, { stage: 'team-verify', task: 'verify-9' });
    expect(stubborn.readResult('verify-9')).toMatchObject({ status: 'completed', verdict: 'fail' });
  });

  it('rejects the first M reviews of the run counted across iterations', async () => {
    const picky = project('review-rejects-twice.json');
    const verdicts: unknown[] = [];
    for (const [task, attempt] of [['review-1', 1], ['review-1', 2], ['review-2', 1], ['i2.review-1', 1]] as const) {
      await runSim(picky, { stage: 'ralph-review', task, attempt });
      verdicts.push(picky.readResult(task, attempt).verdict);
    }
    expect(verdicts).toEqual(['reject', 'reject', 'reject', 'approve']);
    expect(picky.readResult('review-2').reasons).toEqual(['Error messages are not user friendly.']);
  });

  it('counts only the reviews of its own run', async () => {
    const picky = project('review-rejects-twice.json');
    await runSim(picky, { stage: 'ralph-review', task: 'review-1', run: 'other' });
    await runSim(picky, { stage: 'ralph-review', task: 'review-2', run: 'other' });
    await runSim(picky, { stage: 'ralph-review', task: 'review-1' });
    expect(picky.readResult('review-1').verdict).toBe('reject');
  });
});

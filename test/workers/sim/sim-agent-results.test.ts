import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureSimBuilt, runSim, useSimFolders } from './run-sim.js';

describe('sim-agent results', () => {
  beforeAll(ensureSimBuilt);
  const project = useSimFolders();

  it('plans the demo diamond of four tasks with a PRD when no scenario is given', async () => {
    const demo = project();
    const run = await runSim(demo, { stage: 'team-plan', task: 'plan' });
    expect(run.exitCode).toBe(0);
    const result = demo.readResult('plan');
    expect(result).toMatchObject({ status: 'completed', needsPrd: true, artifacts: [] });
    expect(result.summary).toContain('Add input validation to the API');
    const tasks = result.tasks as Array<{ id: string; blockedBy?: string[] }>;
    expect(tasks.map((task) => `${task.id}<${(task.blockedBy ?? []).join(',')}`)).toEqual(['t1<', 't2<t1', 't3<t1', 't4<t2,t3']);
  });

  it('plans N independent tasks from a count', async () => {
    const many = project('plan-too-many-tasks.json');
    await runSim(many, { stage: 'team-plan', task: 'plan' });
    const tasks = many.readResult('plan').tasks as Array<{ id: string; blockedBy?: string[] }>;
    expect(tasks).toHaveLength(60);
    expect(tasks[59]).toMatchObject({ id: 't60', title: 'Sim task t60' });
    expect(tasks.every((task) => task.blockedBy === undefined)).toBe(true);
  });

  it('plans a cycle when the scenario says so', async () => {
    const cycle = project('plan-cycle.json');
    await runSim(cycle, { stage: 'team-plan', task: 'plan' });
    expect(cycle.readResult('plan').tasks).toContainEqual({ id: 't1', title: 'First', description: expect.any(String), blockedBy: ['t3'] });
  });

  it('gives acceptance criteria for every planned task, with prefixed ids in later iterations', async () => {
    const demo = project();
    await runSim(demo, { stage: 'team-prd', task: 'prd' });
    expect(Object.keys(demo.readResult('prd').acceptance as object)).toEqual(['t1', 't2', 't3', 't4']);
    await runSim(demo, { stage: 'team-prd', task: 'i2.prd' });
    expect(Object.keys(demo.readResult('i2.prd').acceptance as object)).toContain('i2.t4');
  });

  it('writes its exec file, lists it as an artifact and records one ledger line', async () => {
    const demo = project();
    await runSim(demo, { stage: 'team-exec', task: 't2', worker: 'worker-3' });
    expect(demo.readResult('t2')).toMatchObject({ status: 'completed', artifacts: ['sim-output/t2.txt'] });
    expect(readFileSync(join(demo.dir, 'sim-output/t2.txt'), 'utf8')).toBe('task t2 attempt 1 by worker-3\n');
    expect(demo.readLedger()).toEqual([
      { run: 'run-1', task: 't2', attempt: 1, stage: 'team-exec', role: 'executor', worker: 'worker-3', pid: expect.any(Number), at: expect.any(String) },
    ]);
  });

  it('writes the ledger where TEAM_SIM_LEDGER points', async () => {
    const demo = project();
    const ledger = join(demo.dir, 'elsewhere', 'ledger.jsonl');
    await runSim(demo, { stage: 'team-fix', task: 'fix-1-d1' }, { env: { TEAM_SIM_LEDGER: ledger } });
    expect(readFileSync(ledger, 'utf8')).toContain('"task":"fix-1-d1"');
    expect(existsSync(join(demo.dir, 'sim-output/fix-1-d1.txt'))).toBe(true);
  });

  it('fails the attempt a rule names and succeeds on the next', async () => {
    const flaky = project('exec-flaky.json');
    await runSim(flaky, { stage: 'team-exec', task: 't2', attempt: 1 });
    await runSim(flaky, { stage: 'team-exec', task: 't2', attempt: 2 });
    expect(flaky.readResult('t2', 1)).toMatchObject({ status: 'failed', summary: 't2 broke on its first try' });
    expect(flaky.readResult('t2', 2)).toMatchObject({ status: 'completed' });
  });

  it('writes a result that is not JSON, or one missing fields', async () => {
    const broken = project({ rules: [{ match: { task: 'plan' }, do: { malformed: 'not-json' } }, { match: { task: 't1' }, do: { malformed: 'missing-fields' } }] });
    await runSim(broken, { stage: 'team-plan', task: 'plan' });
    await runSim(broken, { stage: 'team-exec', task: 't1' });
    expect(readFileSync(broken.resultFile('plan'), 'utf8')).toBe('sim: this result is not JSON {\n');
    expect(broken.readResult('t1')).toEqual({ status: 'completed' });
  });

  it('exits non-zero without a result when told', async () => {
    const crashing = project({ stages: { 'team-exec': { exitCode: 7 } } });
    const run = await runSim(crashing, { stage: 'team-exec', task: 't1' });
    expect(run.exitCode).toBe(7);
    expect(existsSync(crashing.resultFile('t1'))).toBe(false);
    expect(crashing.readLedger()).toHaveLength(1);
  });

  it('prints the result as the last fenced json block instead of writing the file', async () => {
    const chat = project({ stages: { 'team-verify': { resultVia: 'stdout', printLines: 3 } } });
    const run = await runSim(chat, { stage: 'team-verify', task: 'verify-1' });
    expect(existsSync(chat.resultFile('verify-1'))).toBe(false);
    const blocks = [...String(run.stdout).matchAll(/```json\n([\s\S]*?)\n```/g)];
    expect(JSON.parse(blocks.at(-1)?.[1] ?? '')).toMatchObject({ status: 'completed', verdict: 'pass' });
    expect(String(run.stdout).trimEnd().endsWith('```')).toBe(true);
  });

  it('writes a failed result when its prompt file is missing', async () => {
    const demo = project();
    rmSync(join(demo.dir, 'prompt.md'));
    const run = await runSim(demo, { stage: 'team-exec', task: 't1' });
    expect(run.exitCode).toBe(0);
    expect(demo.readResult('t1')).toMatchObject({ status: 'failed', summary: expect.stringContaining('cannot read the prompt file') });
  });

  it('exits 2 naming the field when the scenario is invalid', async () => {
    const bad = project({ verify: { failPasses: 'sometimes' } });
    const run = await runSim(bad, { stage: 'team-verify', task: 'verify-1' });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`sim scenario ${bad.scenario} is invalid:`);
    expect(run.stderr).toContain('→ at verify.failPasses');
    expect(existsSync(bad.resultFile('verify-1'))).toBe(false);
  });

  it('exits 2 naming the variable when the environment is incomplete', async () => {
    const demo = project();
    const run = await runSim(demo, { stage: 'team-build', task: 't1' });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('TEAM_STAGE must be one of team-plan, team-prd');
  });
});

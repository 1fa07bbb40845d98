import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeProject, removeProjects, type TestProject } from '../helpers/project.js';

afterEach(removeProjects);

const PLAN = '# plan\n- t1: add validation\n';

// A run with docs/plan.md approved for team-plan by ana; returns the run id.
async function withApprovedPlan(project: TestProject): Promise<string> {
  const runId = await project.startRun();
  project.write('docs/plan.md', PLAN);
  const result = await project.team('approve', '--stage', 'team-plan', '--artifact', 'docs/plan.md', '--by', 'ana', '--note', 'looks right');
  expect(result.exitCode).toBe(0);
  return runId;
}

describe('team approve', () => {
  it('records the artifact revision it approved, by its sha256', async () => {
    const project = makeProject();
    const runId = await withApprovedPlan(project);
    const dir = join(project.runDir(runId), 'approvals');
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{8}T\d{12}Z-team-plan-[0-9a-z]{6}\.json$/);
    expect(JSON.parse(readFileSync(join(dir, files[0]!), 'utf8'))).toMatchObject({
      stage: 'team-plan',
      artifact: 'docs/plan.md',
      sha256: createHash('sha256').update(PLAN).digest('hex'),
      by: 'ana',
      note: 'looks right',
    });
  });

  it('reports an untouched approval as fresh', async () => {
    const project = makeProject();
    await withApprovedPlan(project);
    const status = await project.statusJson();
    expect(status.approvals).toMatchObject([{ stage: 'team-plan', artifact: 'docs/plan.md', by: 'ana', stale: false }]);
    expect(status.attention.staleApprovals).toEqual([]);
  });

  it('reports the approval stale once the artifact is edited', async () => {
    const project = makeProject();
    await withApprovedPlan(project);
    project.write('docs/plan.md', `${PLAN}- t2: sneaked in\n`);
    const status = await project.statusJson();
    expect(status.attention.staleApprovals).toHaveLength(1);
    expect(status.attention.staleApprovals[0]).toMatchObject({ artifact: 'docs/plan.md', stale: true });
    expect(status.attention.staleApprovals[0]!.staleReason).toMatch(/^the artifact changed \(sha256 now [0-9a-f]{12}…\)$/);
    const human = await project.team('status');
    expect(human.stdout).toMatch(/stale approval: team-plan docs\/plan\.md \(the artifact changed/);
  });

  it('reports the approval stale with the artifact gone once it is deleted', async () => {
    const project = makeProject();
    await withApprovedPlan(project);
    rmSync(join(project.dir, 'docs/plan.md'));
    const status = await project.statusJson();
    expect(status.attention.staleApprovals).toMatchObject([{ artifact: 'docs/plan.md', stale: true, staleReason: 'the artifact is gone' }]);
    const human = await project.team('status');
    expect(human.stdout).toContain('stale approval: team-plan docs/plan.md (the artifact is gone)');
  });

  it('reports the approval fresh again once the artifact is restored byte for byte', async () => {
    const project = makeProject();
    await withApprovedPlan(project);
    project.write('docs/plan.md', 'something else\n');
    project.write('docs/plan.md', PLAN);
    const status = await project.statusJson();
    expect(status.attention.staleApprovals).toEqual([]);
  });

  it('never takes an artifact on disk as an approval', async () => {
    const project = makeProject();
    await project.startRun();
    project.write('docs/plan.md', PLAN);
    const status = await project.statusJson();
    expect(status.approvals).toEqual([]);
  });

  it('records the same approval through team state approve', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    project.write('docs/plan.md', PLAN);
    const result = await project.team('state', 'approve', '--run', runId, '--stage', 'team-plan', '--artifact', 'docs/plan.md', '--by', 'ana');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^approved docs\/plan\.md \(sha256 [0-9a-f]{12}…\) for team-plan by ana\n$/);
    const status = await project.statusJson();
    expect(status.approvals).toMatchObject([{ stage: 'team-plan', artifact: 'docs/plan.md', by: 'ana', note: '', stale: false }]);
  });
});

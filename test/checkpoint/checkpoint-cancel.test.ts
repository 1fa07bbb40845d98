// A run cancelled from another shell leaves a valid checkpoint that says so.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateCheckpointText } from '../../src/checkpoint/validate.js';
import { removeProjects } from '../helpers/project.js';
import { allRoles, makeSimProject, shellAgent } from '../helpers/sim-project.js';
import { waitForEvent } from '../helpers/wait-event.js';

// An executor that works until a `release` file appears (the test never writes it: the run is cancelled).
const GATED_EXECUTOR = shellAgent('i=0; while [ ! -e "$TEAM_PROJECT_DIR/release" ]; do i=$((i+1)); [ $i -gt 3000 ] && exit 9; sleep 0.05; done');
const POLL_LIMIT_MS = 40_000;

afterAll(removeProjects);

describe('checkpoint of a cancelled run', () => {
  it('is valid, failed, and names the cancel in skill_state', async () => {
    const project = makeSimProject('e2e-live-status', { agents: { gated: GATED_EXECUTOR }, roles: allRoles('sim', { executor: 'gated' }) });
    const running = project.team('1:executor', 'do the slow thing');
    const file = join(project.dir, '.checkpoints/team.checkpoint.json');
    await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 'slow' && e.attempt === 1, { timeoutMs: POLL_LIMIT_MS });
    const live = JSON.parse(readFileSync(file, 'utf8'));
    expect(live).toMatchObject({ status: 'in_progress', phase: 'team-exec' });
    const cancel = await project.team('cancel', '--force');
    expect(cancel.exitCode, cancel.stderr).toBe(0);
    const result = await running;
    expect(result.exitCode, result.stderr).toBe(3);
    const text = readFileSync(file, 'utf8');
    expect(validateCheckpointText(text, file)).toEqual({ errors: [], warnings: [] });
    const doc = JSON.parse(text);
    expect(doc).toMatchObject({ status: 'failed', skill_state: { run_status: 'cancelled' }, created_at: live.created_at });
    expect(doc.progress_table.find((r: { id: string }) => r.id === 'slow')).toEqual({ id: 'slow', label: 'Takes as long as the test wants', status: 'blocked' });
  });
});

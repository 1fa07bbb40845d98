// Torn writes: what a write cut short by kill -9 leaves (temporary files) is reported and ignored,
// never taken as a fact, and a resume goes on past it.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { handoffProblems, ledgerProblems, logProblems, replayOf } from '../helpers/recovery-checks.js';
import { leftoverProcesses } from '../helpers/recovery-procs.js';
import { makeRecoveryProject, removeRecoveryProjects } from '../helpers/recovery-project.js';
import { taskEvent } from '../helpers/events.js';
import { ended, killOrchestrator } from '../helpers/recovery-wait.js';
import { waitForEvent } from '../helpers/wait-event.js';

const STAMP = '20261130T000000000000Z';

describe('checkpoint/read (torn writes after kill -9)', () => {
  afterEach(removeRecoveryProjects);

  it('reports stray temporary event and handoff files as ignored, does not take them as facts, and resume completes the run', { timeout: 240_000 }, async () => {
    const project = makeRecoveryProject('slow-exec');
    const orchestrator = project.spawn('1:executor', 'survive torn writes', '--agent', 'sim');
    await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't1' && e.attempt === 1, { stopIf: ended(orchestrator) });
    await killOrchestrator(orchestrator);
    // A whole terminal event that never got its final name, and one cut off mid-way.
    const whole = taskEvent(project.runId(), { task_id: 't1', attempt: 1, status: 'completed', evidence: 'never renamed' });
    const wholeName = `.tmp-a1b2c3-${STAMP}-task_finished-t1-a1-zz9zz9.json.tmp`;
    const tornName = `.tmp-d4e5f6-${STAMP}-task_finished-t1-a1-yy8yy8.json.tmp`;
    writeFileSync(join(project.eventsDir(), wholeName), `${JSON.stringify(whole)}\n`);
    writeFileSync(join(project.eventsDir(), tornName), JSON.stringify(whole).slice(0, 60));
    const handoffTemp = join(project.runDir(), 'handoffs', '.tmp-g7h8i9-02-team-exec.md.tmp');
    writeFileSync(handoffTemp, '## Handoff: team-exec → team-verify\n- **Decided**: half of a');

    const before = await project.statusJson();

    expect(before.attention.malformed).toEqual(
      expect.arrayContaining([
        { file: `events/${wholeName}`, reason: expect.stringMatching(/^stray temporary file.*ignored$/) },
        { file: `events/${tornName}`, reason: expect.stringMatching(/^stray temporary file.*ignored$/) },
      ]),
    );
    expect(before.attention.uncertain).toEqual([{ task: 't1', attempt: 1 }]);
    expect(before.tasks.find((t) => t.id === 't1')?.status).toBe('running');

    const resumed = await project.team('resume');

    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const events = project.events();
    expect(events.filter((e) => e.event === 'task_finished' && e.task_id === 't1').map((e) => [e.attempt, e.status, e.evidence])).not.toContainEqual([1, 'completed', 'never renamed']);
    expect(ledgerProblems(project.ledger(), events, project.runId(), ['plan', 't1', 'verify-1'])).toEqual([]);
    expect(logProblems(events)).toEqual([]);
    expect(await handoffProblems(project, events, ['team-plan', 'team-exec', 'team-verify'])).toEqual([]);
    expect(readdirSync(join(project.runDir(), 'handoffs'))).toContain('02-team-exec.md');
    expect(await replayOf(project)).toEqual({ value: 'done', status: 'done', pending: [] });
    const after = await project.statusJson();
    expect(after.status).toBe('completed');
    expect(after.attention.malformed.every((p) => p.reason.startsWith('stray temporary file'))).toBe(true);
    expect(await leftoverProcesses(project.runDir(), project.runId())).toEqual([]);
  });
});

// The team tools and an attempt's life: progress notes keep a quiet attempt alive past the status
// check while a silent one is marked stalled; a cancel reaches a worker that called the tools as a
// shutdown request it acknowledges with team_done, while one that never called them is signalled at once.
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { makeGitProject } from '../helpers/git-project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { answersOf, attemptFile, attemptPath, eventsNow, startTeam } from './helpers.js';
import { waitFor, waitForEvent } from '../helpers/wait-event.js';

afterAll(removeProjects);

// The watchdog's status check in these runs; the notes come every 250 ms.
const STATUS_CHECK_MS = 2_000;

const TWO_TASKS = { tasks: [{ id: 'a', title: 'Noted', acceptance: ['x'] }, { id: 'b', title: 'Silent', acceptance: ['x'] }] };

describe('progress notes', () => {
  it('keep an attempt alive past statusCheckMs while a silent one is marked stalled', async () => {
    const project = makeGitProject(
      {
        plan: TWO_TASKS,
        rules: [
          // Quiet: no output at all while it works, only its notes.
          { match: { stage: 'team-exec', task: 'a' }, do: { tools: [{ call: 'team_progress', args: { text: 'still at it' }, repeat: 10, everyMs: 250, quiet: true }] } },
          { match: { stage: 'team-exec', task: 'b' }, do: { sleepMs: 6_000 } },
        ],
      },
      { watchdog: { statusCheckMs: STATUS_CHECK_MS, reassignMs: 60_000 } },
    );
    const result = await project.run('2:executor', 'take notes while working', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const events = eventsNow(project);
    const notes = eventsOf(events, 'team_progress').filter((e) => e.task_id === 'a');
    expect(notes.length).toBeGreaterThanOrEqual(8);
    const stalled = eventsOf(events, 'attempt_stalled').map((e) => e.task_id);
    // b said nothing for 6 s, three times statusCheckMs whatever the machine's load: stalled.
    expect(stalled).toContain('b');
    // a is judged by what its log shows, not by a margin a busy machine breaks: signs of life closer
    // than statusCheckMs keep it alive; only a gap of twice that may have it marked stalled.
    const lives = [eventsOf(events, 'attempt_spawned').find((e) => e.task_id === 'a')!, ...notes].map((e) => Date.parse(e.at));
    const widest = Math.max(...lives.slice(1).map((at, i) => at - lives[i]!));
    if (widest < STATUS_CHECK_MS) expect(stalled).not.toContain('a');
    if (widest > 2 * STATUS_CHECK_MS) expect(stalled).toContain('a');
  });
});

describe('cancel with the team tools', () => {
  it('asks a worker that called the tools to stop; it answers with team_done; one that never called them is signalled at once', async () => {
    const project = makeGitProject(
      {
        plan: TWO_TASKS,
        rules: [
          {
            match: { stage: 'team-exec', task: 'a' },
            do: { tools: [{ call: 'team_progress', args: { text: 'started' } }, { call: 'team_inbox', until: 'shutdown', everyMs: 100, maxMs: 30_000 }, { call: 'team_done', args: { summary: 'stopped cleanly, half done' } }] },
          },
          // b's agent started its tool server but has made no call (a model still thinking): not asked, signalled.
          { match: { stage: 'team-exec', task: 'b' }, do: { tools: [], hang: true } },
        ],
      },
      { team: { shutdownTimeoutMs: 5_000 } },
    );
    const run = startTeam(project, '2:executor', 'cancel me', '--agent', 'sim');
    await waitForEvent(project, 'team_progress', (e) => e.task_id === 'a');
    await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 'b');
    await waitFor('b\'s tool server up', () => existsSync(attemptPath(project, 'b', 1, 'calls')), 20_000);
    const cancelled = await project.team('cancel');
    expect(cancelled.exitCode, cancelled.stderr).toBe(0);
    expect((await run).exitCode).toBe(3);
    const events = eventsNow(project);
    expect(eventsOf(events, 'team_shutdown_requested').map((e) => [e.task_id, e.by])).toEqual([['a', 'cancel']]);
    const shutdown = answersOf(attemptFile(project, 'a', 1, 'output.log'), 'team_inbox').at(-1)!;
    expect(shutdown.shutdown).toMatch(/^cancel asks you to stop: finish now with team_done/);
    const finished = new Map(eventsOf(events, 'task_finished').map((e) => [e.task_id, e]));
    expect(finished.get('a')).toMatchObject({ status: 'completed', evidence: 'stopped cleanly, half done' });
    expect(finished.get('b')).toMatchObject({ status: 'interrupted' });
    expect(events.at(-1)!.event).toBe('run_cancelled');
  });
});

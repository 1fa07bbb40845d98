// kill -9 of the orchestrator while a worker calls the team tools, then `team resume`: every call is
// recorded once and answered, a call left unanswered by the crash is answered by the next
// orchestrator, and a request to the writer inbox taken again after a crash is recorded once.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveRun } from '../../src/log/write.js';
import { INBOX_DIR } from '../../src/store/files/inbox.js';
import { lockPid } from '../helpers/detached.js';
import { removeProjects } from '../helpers/project.js';
import { makeGitProject } from '../helpers/git-project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { eventsNow, startTeam } from './helpers.js';
import { waitForEvent } from '../helpers/wait-event.js';

afterAll(removeProjects);

describe('team tools across a crash of the orchestrator', () => {
  it('records every call once through kill -9 and resume', async () => {
    const project = makeGitProject({
      plan: { tasks: [{ id: 'a', title: 'Busy', acceptance: ['x'] }, { id: 'b', title: 'Quick', acceptance: ['x'] }] },
      rules: [
        {
          match: { stage: 'team-exec', task: 'a' },
          do: { tools: [{ call: 'team_progress', args: { text: 'step' }, repeat: 40, everyMs: 50 }, { call: 'team_inbox', until: 'unread', everyMs: 100, maxMs: 30_000 }, { call: 'team_done', args: { summary: 'done after the crash' } }] },
        },
        // b is still at work when the message to it is sent (a message to an ended task is refused).
        { match: { stage: 'team-exec', task: 'b' }, do: { sleepMs: 2_000 } },
      ],
    });
    const run = startTeam(project, '2:executor', 'survive a crash', '--agent', 'sim');
    // A message taken by the first orchestrator, whose request file a crash could leave behind.
    await waitForEvent(project, 'team_progress', (e) => e.task_id === 'a');
    expect((await project.team('say', '--to', 'b', 'hello before the crash')).exitCode).toBe(0);
    const said = await waitForEvent(project, 'team_message', (e) => e.from === 'human');
    let notes = 0;
    await waitForEvent(project, 'team_progress', () => (notes += 1) >= 5);
    const paths = resolveRun(project.dir, undefined);
    process.kill(lockPid(project, paths.runId)!, 'SIGKILL');
    await run;
    const calls = join(paths.runDir, 'attempts', 'a', 'a1', 'calls');
    // What a kill between recording and its follow-up leaves: a recorded call with no answer, and a
    // taken inbox request still in its folder.
    const answered = readdirSync(calls).filter((n) => n.endsWith('.answer.json')).sort();
    rmSync(join(calls, answered[0]!));
    const inbox = join(paths.runDir, INBOX_DIR);
    const key = 'key' in said ? said.key : '';
    project.write(join('.team', 'runs', paths.runId, INBOX_DIR, `20260101T000000000000Z-${key}.json`), JSON.stringify({ kind: 'message', key, body: { from: 'human', to: 'b', text: 'hello before the crash' }, at: said.at }));
    // The worker goes on calling while nothing answers; the message waits for the next writer.
    await sleep(300);
    expect((await project.team('say', '--to', 'a', 'finish now')).stdout).toMatch(/no orchestrator drives the run now/);
    const resumed = await project.run('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);

    const events = eventsNow(project);
    const keys = events.flatMap((e) => ('key' in e && typeof e.key === 'string' ? [e.key] : []));
    expect(new Set(keys).size).toBe(keys.length);
    const made = readdirSync(calls).filter((n) => n.endsWith('.call.json')).map((n) => `call:a:a1:${n.slice(0, -'.call.json'.length)}`);
    expect(made.length).toBeGreaterThanOrEqual(8);
    expect(made.filter((k) => !keys.includes(k))).toEqual([]);
    expect(readdirSync(calls).filter((n) => n.endsWith('.answer.json'))).toHaveLength(made.length);
    expect(eventsOf(events, 'team_message').map((e) => e.text)).toEqual(['hello before the crash', 'finish now']);
    expect(readdirSync(inbox)).toEqual([]);
    expect(eventsOf(events, 'task_finished').find((e) => e.task_id === 'a')).toMatchObject({ status: 'completed', evidence: 'done after the crash' });
  });
});

// The team tools on the PostgreSQL store: the attempts run on a team worker (another machine's
// folder), which relays each call through the writer inbox and answers it once it is in the log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { TeamEvent } from '../../src/log/schema.js';
import { clusterAndProject } from '../store/pg-fixture.js';
import { closeScaleOuts, openScaleOut } from '../store/scale-out-fixture.js';
import { answersOf } from './helpers.js';

const env = clusterAndProject('teamline-tools-pg-');
const worlds = closeScaleOuts();

const SCENARIO = {
  plan: { tasks: [{ id: 'a', title: 'Schema', acceptance: ['x'] }, { id: 'b', title: 'Handler', acceptance: ['x'] }] },
  rules: [
    {
      match: { stage: 'team-exec', task: 'a' },
      do: { tools: [{ call: 'team_reserve', args: { files: ['src/shared.ts'] } }, { call: 'team_message', args: { to: 'lead', text: 'schema first', question: true } }, { call: 'team_inbox', until: 'unread', everyMs: 100, maxMs: 30_000 }, { call: 'team_done', args: { summary: 'schema relayed' } }] },
    },
    {
      match: { stage: 'team-exec', task: 'b' },
      do: { tools: [{ call: 'team_inbox', until: 'unread', everyMs: 100, maxMs: 30_000 }, { call: 'team_reserve', args: { files: ['src/shared.ts'] } }, { call: 'team_done', args: { summary: 'handler relayed' } }] },
    },
  ],
};

describe('team tools on the PostgreSQL store', () => {
  it('relays the calls of a team worker’s attempts through the writer inbox, each recorded once', async () => {
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, SCENARIO));
    const machine = world.worker('machine-a', ['--max', '2']);
    const run = world.team(['2:executor', 'build it remotely', '--agent', 'sim']);
    const eventWhere = async (what: string, test: (e: TeamEvent) => boolean) => {
      for (let i = 0; i < 600; i++) {
        const runId = await world.runId();
        const found = runId ? (await world.events(runId)).find(test) : undefined;
        if (found) return found;
        await sleep(50);
      }
      throw new Error(`no ${what}`);
    };
    await eventWhere('reservation by a', (e) => e.event === 'team_reserved' && e.task_id === 'a');
    await eventWhere('question', (e) => e.event === 'team_message' && e.to === 'lead');
    const status = await world.team(['status']);
    expect(String(status.stdout)).toMatch(/question from worker-\d \(task a\): schema first/);
    expect((await world.team(['say', '--to', 'b', 'go'])).exitCode).toBe(0);
    await eventWhere('reservation by b', (e) => e.event === 'team_reserved' && e.task_id === 'b');
    expect((await world.team(['say', '--to', 'a', 'done now'])).exitCode).toBe(0);
    const ended = await run;
    expect(ended.exitCode, String(ended.stderr)).toBe(0);
    const runId = (await world.runId())!;
    const events = await world.events(runId);
    const keys = events.flatMap((e) => ('key' in e && typeof e.key === 'string' ? [e.key] : []));
    expect(new Set(keys).size).toBe(keys.length);
    expect(events.filter((e) => e.event === 'task_finished' && ['a', 'b'].includes(e.task_id)).map((e) => e.event === 'task_finished' && [e.task_id, e.status, e.evidence]).sort()).toEqual([['a', 'completed', 'schema relayed'], ['b', 'completed', 'handler relayed']]);
    const output = readFileSync(join(machine.dir, '.team', 'worker', 'attempts', runId, 'b', 'a1', 'output.log'), 'utf8');
    expect(answersOf(output, 'team_reserve')[0]).toMatchObject({ alreadyReserved: [{ file: 'src/shared.ts', task: 'a' }] });
    expect(answersOf(readFileSync(join(machine.dir, '.team', 'worker', 'attempts', runId, 'a', 'a1', 'output.log'), 'utf8'), 'team_inbox').at(-1)!.unread).toEqual([expect.objectContaining({ from: 'human', text: 'done now' })]);
    expect(((await world.store.pendingRequests(runId)).requests)).toEqual([]);
  });

  it('asks a team worker’s attempt with the tools to stop; it ends with team_done, the one without is stopped', async () => {
    const scenario = {
      plan: SCENARIO.plan,
      rules: [
        { match: { stage: 'team-exec', task: 'a' }, do: { tools: [{ call: 'team_progress', args: { text: 'started' } }, { call: 'team_inbox', until: 'shutdown', everyMs: 100, maxMs: 30_000 }, { call: 'team_done', args: { summary: 'stopped cleanly' } }] } },
        { match: { stage: 'team-exec', task: 'b' }, do: { hang: true } },
      ],
    };
    const world = worlds.add(await openScaleOut(env.cluster.url, env.project, scenario, { shutdownTimeoutMs: 5_000 }));
    world.worker('machine-a', ['--max', '2']);
    const run = world.team(['2:executor', 'cancel it remotely', '--agent', 'sim']);
    for (let i = 0; i < 600; i++) {
      const runId = await world.runId();
      const events = runId ? await world.events(runId) : [];
      if (events.some((e) => e.event === 'team_progress') && events.some((e) => e.event === 'attempt_taken' && e.task_id === 'b')) break;
      await sleep(50);
    }
    expect((await world.team(['cancel'])).exitCode).toBe(0);
    expect((await run).exitCode).toBe(3);
    const events = await world.events((await world.runId())!);
    expect(events.filter((e) => e.event === 'team_shutdown_requested').map((e) => e.event === 'team_shutdown_requested' && e.task_id)).toEqual(['a']);
    const finished = new Map(events.flatMap((e) => (e.event === 'task_finished' ? [[e.task_id, e] as const] : [])));
    expect(finished.get('a')).toMatchObject({ status: 'completed', evidence: 'stopped cleanly' });
    expect(finished.get('b')).toMatchObject({ status: 'interrupted' });
  });
});

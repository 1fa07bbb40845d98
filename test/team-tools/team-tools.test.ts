// The team tools end to end: a real run of two sim workers in a git repository, each an MCP client
// of the built `team mcp` (spawned with the SDK's filtered environment: nothing but the attempt's
// folder tells the server who it serves), the person answering with `team say`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { makeGitProject } from '../helpers/git-project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { answersOf, attemptFile, eventsNow, startTeam } from './helpers.js';
import { waitForEvent } from '../helpers/wait-event.js';

afterAll(removeProjects);

const SCENARIO = {
  plan: {
    tasks: [
      { id: 'a', title: 'Schema', acceptance: ['schema'] },
      { id: 'b', title: 'Handler', acceptance: ['handler'] },
      { id: 'c', title: 'Client', blockedBy: ['a'], acceptance: ['client'] },
    ],
  },
  rules: [
    {
      match: { stage: 'team-exec', task: 'a' },
      do: {
        tools: [
          { call: 'team_tasks' },
          { call: 'team_reserve', args: { files: ['src/shared.ts'] } },
          { call: 'team_message', args: { to: 'lead', text: 'which database should the schema use?', question: true } },
          { call: 'team_message', args: { to: 'c', text: 'the schema lives in src/shared.ts' } },
          { call: 'team_inbox', until: 'unread', everyMs: 100, maxMs: 30_000 },
          { call: 'team_done', args: { summary: 'schema done', evidence: 'the schema test passes' } },
        ],
      },
    },
    {
      match: { stage: 'team-exec', task: 'b' },
      do: {
        tools: [
          { call: 'team_inbox', until: 'unread', everyMs: 100, maxMs: 30_000 },
          { call: 'team_reserve', args: { files: ['src/shared.ts', 'src/b.ts'] } },
          { call: 'team_done', args: { summary: 'handler done' } },
        ],
      },
    },
  ],
};

describe('team mcp with two workers', () => {
  const project = makeGitProject(SCENARIO, { team: { monitorIntervalMs: 200 } });
  let exit: number | undefined;
  let stdoutOfSay = '';
  let statusText = '';
  let waitText = '';
  let statusJson: { attention: { questions: Array<{ text: string }> }; team: { toLead: Array<{ text: string }> } } | undefined;

  it('runs the team: the lead sees the question, `team say` reaches both running workers, the run completes', async () => {
    const run = startTeam(project, '2:executor', 'build the api', '--agent', 'sim');
    await waitForEvent(project, 'team_message', (e) => e.to === 'lead' && e.question === true);
    await waitForEvent(project, 'team_reserved', (e) => e.task_id === 'a');
    statusText = (await project.team('status')).stdout;
    statusJson = JSON.parse((await project.team('status', '--json')).stdout);
    const waited = await project.team('wait', '--timeout', '1');
    waitText = waited.stdout + waited.stderr;
    const said = await project.team('say', '--to', 'b', 'go ahead, a holds src/shared.ts');
    stdoutOfSay = said.stdout;
    expect(said.exitCode, said.stderr).toBe(0);
    await waitForEvent(project, 'team_reserved', (e) => e.task_id === 'b');
    expect((await project.team('say', '--to', 'a', 'use sqlite')).exitCode).toBe(0);
    const result = await run;
    exit = result.exitCode;
    expect(exit, `${result.stderr}`).toBe(0);
  });

  it('shows the question to the lead in status, as needing attention', () => {
    expect(statusText).toMatch(/team:\n(.|\n)*question from worker-\d \(task a\) at [\d:]+: which database should the schema use\?/);
    expect(statusText).toMatch(/needs attention:\n(.|\n)*question from worker-\d \(task a\): which database should the schema use\? — answer with `team say --to a "…"`/);
    expect(statusText).toMatch(/reserved src\/shared\.ts by worker-\d \(a\)/);
    expect(statusJson!.attention.questions.map((q) => q.text)).toEqual(['which database should the schema use?']);
    expect(statusJson!.team.toLead.map((q) => q.text)).toEqual(['which database should the schema use?']);
    expect(waitText).toMatch(/team:\n\s+question from worker-\d \(task a\)/);
    expect(waitText).toMatch(/needs attention:\n(.|\n)*question from worker-\d \(task a\): which database/);
    // The question was open when that wait began: it waited out its timeout, not returning for it.
    expect(waitText).toMatch(/is still running after 1s of waiting/);
    expect(waitText).not.toContain('a worker asked the lead');
    expect(stdoutOfSay).toMatch(/^message for b left for run \S+: read at its next tool call/);
  });

  it('lists the tasks, with owner and blockedBy', () => {
    const [tasks] = answersOf(attemptFile(project, 'a', 1, 'output.log'), 'team_tasks');
    const listed = (tasks!.tasks as Array<{ id: string; owner: string; blockedBy: string[]; status: string }>).filter((t) => ['a', 'b', 'c'].includes(t.id));
    expect(listed.map((t) => [t.id, t.blockedBy])).toEqual([['a', []], ['b', []], ['c', ['a']]]);
    expect(listed.find((t) => t.id === 'a')).toMatchObject({ status: 'running', owner: expect.stringMatching(/^worker-\d$/) });
  });

  it('tells the second worker who holds the file it reserves, and shows the overlap', async () => {
    const a = eventsOf(eventsNow(project), 'team_reserved').find((e) => e.task_id === 'a')!;
    const [reserve] = answersOf(attemptFile(project, 'b', 1, 'output.log'), 'team_reserve');
    expect(reserve).toMatchObject({ reserved: ['src/shared.ts', 'src/b.ts'], alreadyReserved: [{ file: 'src/shared.ts', by: a.worker, task: 'a' }] });
    expect((await project.team('status')).stdout).toMatch(new RegExp(`overlap: src/shared\\.ts reserved by worker-\\d \\(b\\) while ${a.worker} \\(a\\) held it`));
  });

  it('delivers `team say` at the worker’s next call, and the answered question no longer needs attention', async () => {
    const inbox = answersOf(attemptFile(project, 'a', 1, 'output.log'), 'team_inbox').at(-1)!;
    expect(inbox.unread).toEqual([expect.objectContaining({ from: 'human', text: 'use sqlite' })]);
    const status = (await project.team('status')).stdout;
    expect(status).not.toMatch(/needs attention:(.|\n)*question from/);
    // Every message was read: at a tool call, or in the prompt of an attempt started after it.
    expect(status).not.toContain('undelivered');
  });

  it('lists the messages to the lead and the overlap in the live view', async () => {
    const watched = await project.team('watch');
    expect(watched.exitCode, watched.stderr).toBe(0);
    expect(watched.stdout).toMatch(/team: question from worker-\d \(task a\) at [\d:]+: which database should the schema use\?/);
    expect(watched.stdout).toMatch(/team: overlap: src\/shared\.ts reserved by worker-\d \(b\)/);
  });

  it('lists the messages to the lead in the report', async () => {
    const report = await project.team('report', '--out', 'report.html');
    expect(report.exitCode, report.stderr).toBe(0);
    expect(readFileSync(join(project.dir, 'report.html'), 'utf8')).toContain('team: question from worker-');
  });

  it('puts a finished task’s message to its dependent in the dependent’s prompt', () => {
    expect(attemptFile(project, 'c', 1, 'prompt.md')).toMatch(/## Messages from teammates\n\n- from worker-\d \(task a\): the schema lives in src\/shared\.ts\n$/);
  });

  it('ends the attempts with the results handed to team_done, judged as result files are', () => {
    const finished = eventsOf(eventsNow(project), 'task_finished').filter((e) => e.task_id === 'a' || e.task_id === 'b');
    expect(finished.map((e) => [e.task_id, e.status, e.evidence])).toEqual(expect.arrayContaining([['a', 'completed', 'the schema test passes'], ['b', 'completed', 'handler done']]));
    expect(eventsOf(eventsNow(project), 'team_result').map((e) => e.task_id).sort()).toEqual(['a', 'b']);
  });

  it('records every call once, each before its answer', () => {
    const events = eventsNow(project);
    const keys = events.flatMap((e) => ('key' in e && typeof e.key === 'string' && e.key.startsWith('call:') ? [e.key] : []));
    expect(new Set(keys).size).toBe(keys.length);
    // a: tasks, reserve, two messages, at least one inbox look, done; b: at least one inbox look, reserve, done.
    const of = (task: string) => events.filter((e) => 'key' in e && typeof e.key === 'string' && e.key.startsWith(`call:${task}:`)).map((e) => e.event);
    expect(of('a')).toEqual(expect.arrayContaining(['team_looked', 'team_reserved', 'team_message', 'team_message', 'team_result']));
    expect(of('b').filter((e) => e !== 'team_looked')).toEqual(['team_reserved', 'team_result']);
  });
});

// A wait that follows the run for an agent (`/team` runs `team wait --timeout 100` in a loop) returns
// at a worker's question to the lead, not at its timeout or the run's end: the outer agent asks the
// person then, and costs no turn before.
describe('team wait at a question to the lead', () => {
  const project = makeGitProject(SCENARIO, { team: { monitorIntervalMs: 200 } });

  it('returns, still running, as soon as a worker asks the lead; the next wait, after the answer, follows the run to its end', async () => {
    const run = startTeam(project, '2:executor', 'build the api', '--agent', 'sim');
    await waitForEvent(project, 'run_started');
    // From the log's first event: the question comes after it, whenever this wait starts.
    const asked = await project.team('wait', '--since', '1', '--timeout', '600');
    expect(asked.exitCode, asked.stderr).toBe(5);
    expect(asked.stdout).toMatch(/^run \S+ is still running after \d+s of waiting/);
    expect(asked.stdout).toMatch(/\n {2}a worker asked the lead \(one question\)/);
    expect(asked.stdout).toMatch(/needs attention:\n(.|\n)*question from worker-\d \(task a\): which database should the schema use\? — answer with `team say --to a "…"`/);
    // The next command keeps the wait's timeout, not how long it waited.
    const next = /next: (team wait .*--timeout 600) \(/.exec(asked.stdout)?.[1];
    expect(next).toBeDefined();
    expect((await project.team('say', '--to', 'b', 'go ahead')).exitCode).toBe(0);
    expect((await project.team('say', '--to', 'a', 'use sqlite')).exitCode).toBe(0);
    const ended = await project.team(...next!.split(' ').slice(1));
    expect(ended.exitCode, ended.stdout + ended.stderr).toBe(0);
    expect(ended.stdout).toContain('COMPLETED');
    expect((await run).exitCode).toBe(0);
  });

  it('says so in --json, with the question', async () => {
    const again = makeGitProject(SCENARIO, { team: { monitorIntervalMs: 200 } });
    const run = startTeam(again, '2:executor', 'build the api', '--agent', 'sim');
    await waitForEvent(again, 'run_started');
    const asked = await again.team('wait', '--since', '1', '--timeout', '600', '--json');
    expect(asked.exitCode, asked.stderr).toBe(5);
    const doc = JSON.parse(asked.stdout) as { type: string; status: string; questions: Array<{ task: string; text: string }> };
    expect(doc).toMatchObject({ type: 'wait.question', status: 'running', questions: [{ task: 'a', text: 'which database should the schema use?' }] });
    expect((await again.team('say', '--to', 'b', 'go ahead')).exitCode).toBe(0);
    expect((await again.team('say', '--to', 'a', 'use sqlite')).exitCode).toBe(0);
    expect((await run).exitCode).toBe(0);
  });
});

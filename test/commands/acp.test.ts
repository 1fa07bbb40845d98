// `team acp` (issue 39): teamline as an ACP agent, driven over stdio by a client built on the
// official SDK's client side, as an editor drives it: a prompt starts a run in the session's folder
// (a git repository, 2 workers, the sim agent); its tasks come as plan entries, each attempt as a
// tool call, the end's summary as the agent's message; session/cancel cancels the run. The run is
// an ordinary one: `team status` sees it.
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION, type PromptResponse, type RequestPermissionRequest, type SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { afterAll, describe, expect, it } from 'vitest';
import { GIT_ENV, makeGitProject } from '../helpers/git-project.js';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, hasSpawned } from '../helpers/sim-project.js';
import { CLI, runTeam } from '../helpers/team.js';
import { promptArgs } from '../../src/commands/acp.js';
import { waitFor } from '../helpers/wait-event.js';

afterAll(removeProjects);

const ROLES = { planner: 'sim', executor: 'sim', verifier: 'sim', architect: 'sim' };

// Runs `team acp` in `dir` and, through the SDK's client, a session there with one prompt; `during`
// runs beside the turn (to cancel it).
// `answer`: the editor's answer to each session/request_permission (its option id); none: every ask is cancelled.
async function promptTeam(dir: string, text: string, during?: (cancel: () => Promise<void>) => Promise<void>, answer?: (ask: RequestPermissionRequest) => string, opened?: (sessionId: string) => void): Promise<{ response: PromptResponse; updates: SessionUpdate[]; asks: RequestPermissionRequest[]; exitCode: number | null }> {
  const child = spawn(process.execPath, [CLI, 'acp'], { cwd: dir, stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...GIT_ENV } });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const updates: SessionUpdate[] = [];
  const asks: RequestPermissionRequest[] = [];
  const stream = ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const response = await client({ name: 'test-editor' })
    .onNotification(methods.client.session.update, ({ params }) => void updates.push(params.update))
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      asks.push(params);
      return { outcome: answer ? { outcome: 'selected', optionId: answer(params) } : { outcome: 'cancelled' } };
    })
    .connectWith(stream, async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
      expect(init.agentInfo?.name).toBe('teamline');
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: dir, mcpServers: [] });
      opened?.(sessionId);
      const turn = ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
      if (during) await during(() => ctx.notify(methods.agent.session.cancel, { sessionId }));
      return turn;
    });
  child.stdin.end();
  return { response, updates, asks, exitCode: await exited };
}

describe('team acp', () => {
  it('reads a prompt as what follows `team`: N:role and the task, ralph and the task, or the task alone, and the flags after the task', () => {
    expect(promptArgs('3:executor add input validation to the API')).toEqual(['3:executor', 'add input validation to the API']);
    expect(promptArgs('  ralph fix the flaky test\n')).toEqual(['ralph', 'fix the flaky test']);
    expect(promptArgs('add a README')).toEqual(['add a README']);
    expect(promptArgs('2:executor add a second greeting --agent sim --max-fix-loops 1')).toEqual(['2:executor', 'add a second greeting', '--agent', 'sim', '--max-fix-loops', '1']);
    expect(promptArgs('3:executor "use --strict in tsconfig" --agent codex')).toEqual(['3:executor', 'use --strict in tsconfig', '--agent', 'codex']);
    expect(promptArgs('ralph fix it --agent claude')).toEqual(['ralph', 'fix it', '--agent', 'claude']);
  });

  it('starts a run from a prompt and streams it: the tasks as plan entries, each attempt as a tool call with its status, the summary as the message, the tokens as usage', async () => {
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', title: 'One', files: ['one.txt'] }, { id: 't2', title: 'Two', files: ['two.txt'] }] }, defaults: { sleepMs: 50, usage: { tokens: { input: 100, output: 10 } } } }, { roles: ROLES });
    const { response, updates, exitCode } = await promptTeam(project.dir, '2:executor write two files');
    expect(response.stopReason).toBe('end_turn');
    expect(exitCode).toBe(0);
    const run = project.readRun();
    expect(eventsOf(run.events, 'run_completed')).toHaveLength(1);
    // The plan's last word: both tasks completed.
    const plans = updates.flatMap((u) => (u.sessionUpdate === 'plan' ? [u.entries] : []));
    expect(plans.at(-1)!.filter((e) => /^t[12]:/.test(e.content)).map((e) => [e.content, e.status])).toEqual([
      ['t1: One', 'completed'],
      ['t2: Two', 'completed'],
    ]);
    // Every attempt of the log is a tool call that ended completed.
    const calls = new Map<string, string>();
    for (const u of updates) if (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') calls.set(u.toolCallId, u.status ?? calls.get(u.toolCallId) ?? '');
    const attempts = eventsOf(run.events, 'task_started').map((e) => `${e.task_id}#${e.attempt}`);
    expect([...calls.keys()].sort()).toEqual([...new Set(attempts)].sort());
    expect([...calls.values()].every((s) => s === 'completed')).toBe(true);
    const message = updates.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');
    expect(message).toContain(`── run ${run.runId}: COMPLETED`);
    // Each handoff came as it was written, before the end's summary.
    for (const header of ['## Handoff: team-plan', '## Handoff: team-exec → team-verify', '## Handoff: team-verify']) expect(message.indexOf(header), header).toBeGreaterThanOrEqual(0);
    expect(message.indexOf('## Handoff: team-exec')).toBeLessThan(message.indexOf(`── run ${run.runId}`));
    expect(response.usage?.inputTokens).toBeGreaterThan(0);
    // An ordinary run: status sees it.
    const status = await runTeam(['status'], { cwd: project.dir, env: GIT_ENV });
    expect(status.stdout).toContain(run.runId);
  }, 120_000);

  it('asks the editor at a stop for a decision (the budget spent) and, told to go on, resumes the run with the budget raised in the same turn', async () => {
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', title: 'One', files: ['one.txt'] }, { id: 't2', title: 'Two', files: ['two.txt'] }] }, defaults: { sleepMs: 50 }, stages: { 'team-exec': { usage: { costUsd: 0.5 } } } }, { roles: ROLES });
    const { response, updates, asks } = await promptTeam(project.dir, '2:executor write two files --budget-usd 0.6', undefined, () => 'go-on');
    const run = project.readRun();
    expect(asks).toHaveLength(1);
    expect(asks[0]!.toolCall.title).toMatch(/^The run stopped for a decision: budget spent: \$1\.00 of \$0\.60/);
    expect(asks[0]!.options.map((o) => [o.optionId, o.name])).toEqual([
      ['go-on', `Go on (team resume --run ${run.runId} --budget-usd 2)`],
      ['stop', 'Leave it stopped'],
    ]);
    expect(eventsOf(run.events, 'budget_raised')).toHaveLength(1);
    expect(eventsOf(run.events, 'run_completed')).toHaveLength(1);
    expect(response.stopReason).toBe('end_turn');
    const message = updates.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');
    expect(message).toContain(`── run ${run.runId}: STOPPED`);
    expect(message).toContain(`── run ${run.runId}: COMPLETED`);
  }, 120_000);

  it('leaves a run stopped for a decision when the editor says so, and ends the turn', async () => {
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', title: 'One', files: ['one.txt'] }] }, defaults: { sleepMs: 50 }, stages: { 'team-exec': { usage: { costUsd: 0.5 } } } }, { roles: ROLES });
    const { response, asks } = await promptTeam(project.dir, '2:executor write a file --budget-usd 0.4', undefined, () => 'stop');
    expect(asks).toHaveLength(1);
    expect(response.stopReason).toBe('end_turn');
    const run = project.readRun();
    expect(eventsOf(run.events, 'budget_raised')).toEqual([]);
    expect(eventsOf(run.events, 'run_stopped')).toHaveLength(1);
  }, 120_000);

  it('asks the editor a worker\'s question to the lead as yes or no, and says the answer to the worker, which goes on with it', async () => {
    const tools = [
      { call: 'team_message', args: { to: 'lead', text: 'may I use the v2 API?', question: true } },
      { call: 'team_inbox', until: 'unread', everyMs: 100, maxMs: 60_000 },
      { call: 'team_done', args: { summary: 'used the v2 API as told' } },
    ];
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', title: 'One', files: ['one.txt'] }] }, defaults: { sleepMs: 50 }, rules: [{ match: { stage: 'team-exec', task: 't1' }, do: { tools } }] }, { roles: ROLES });
    const { response, asks } = await promptTeam(project.dir, '2:executor write a file', undefined, () => 'yes');
    expect(response.stopReason).toBe('end_turn');
    expect(asks.map((a) => [a.toolCall.title, a.options.map((o) => o.optionId)])).toEqual([['worker-1 (task t1) asks: may I use the v2 API?', ['yes', 'no']]]);
    const run = project.readRun();
    const said = eventsOf(run.events, 'team_message').filter((m) => m.from === 'human');
    expect(said.map((m) => [m.to, m.text])).toEqual([['t1', 'The person answers yes to your question: may I use the v2 API?']]);
    expect(eventsOf(run.events, 'run_completed')).toHaveLength(1);
  }, 120_000);

  it('loads an earlier session: its run is told as it stands, and a `resume` prompt goes on with it as team resume does', async () => {
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', title: 'One', files: ['one.txt'] }] }, defaults: { sleepMs: 50 }, stages: { 'team-exec': { usage: { costUsd: 0.5 } } } }, { roles: ROLES });
    // The first editor session: the run stops for its budget, and the editor leaves it stopped.
    let sessionId = '';
    await promptTeam(project.dir, '2:executor write a file --budget-usd 0.4', undefined, () => 'stop', (id) => (sessionId = id));
    const runId = project.readRun().runId;
    // A new `team acp` (the editor restarted) loads that session and resumes its run.
    const child = spawn(process.execPath, [CLI, 'acp'], { cwd: project.dir, stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...GIT_ENV } });
    const updates: SessionUpdate[] = [];
    const stream = ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    const { loaded, response, unknown } = await client({ name: 'test-editor' })
      .onNotification(methods.client.session.update, ({ params }) => void updates.push(params.update))
      .connectWith(stream, async (ctx) => {
        const init = await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
        expect(init.agentCapabilities?.loadSession).toBe(true);
        const unknown = await ctx.request(methods.agent.session.load, { sessionId: 'teamline-no-such-session', cwd: project.dir, mcpServers: [] }).then(() => 'loaded', (error: Error) => error.message);
        await ctx.request(methods.agent.session.load, { sessionId, cwd: project.dir, mcpServers: [] });
        const loaded = [...updates];
        const response = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'resume --budget-usd 2' }] });
        return { loaded, response, unknown };
      });
    child.stdin.end();
    expect(unknown).toMatch(/not found/i);
    // The load told the run as it stood: its task, its attempts, and that a resume goes on.
    expect(loaded.some((u) => u.sessionUpdate === 'plan' && u.entries.some((e) => e.content === 't1: One'))).toBe(true);
    expect(loaded.some((u) => u.sessionUpdate === 'tool_call' && u.toolCallId === 't1#1')).toBe(true);
    const said = (list: SessionUpdate[]) => list.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');
    expect(said(loaded)).toContain(`run ${runId} is stopped: prompt \`resume\``);
    // The resume went on with the same run to its end, and told only what was new.
    expect(response.stopReason).toBe('end_turn');
    const run = project.readRun();
    expect(run.runId).toBe(runId);
    expect(eventsOf(run.events, 'budget_raised')).toHaveLength(1);
    expect(eventsOf(run.events, 'run_completed')).toHaveLength(1);
    expect(said(updates.slice(loaded.length))).toContain(`── run ${runId}: COMPLETED`);
    expect(updates.slice(loaded.length).filter((u) => u.sessionUpdate === 'tool_call' && u.toolCallId === 't1#1')).toEqual([]);
  }, 120_000);

  it('cancels the run on session/cancel: the turn ends cancelled and the log says run_cancelled', async () => {
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', title: 'Slow', files: ['one.txt'] }] }, defaults: { sleepMs: 50 }, rules: [{ match: { stage: 'team-exec' }, do: { hang: true } }] }, { roles: ROLES, team: { shutdownTimeoutMs: 1000 } });
    const { response } = await promptTeam(project.dir, '2:executor a task that hangs', async (cancel) => {
      await waitFor("t1's agent started", () => hasSpawned(project, 't1'), 60_000, 50);
      await cancel();
    });
    expect(response.stopReason).toBe('cancelled');
    expect(eventsOf(project.readRun().events, 'run_cancelled')).toHaveLength(1);
  }, 120_000);

  it('refuses a prompt that names no task, and tells a run that could not start (a bad config) in its message, exit and field named', async () => {
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', title: 'One' }] } }, { roles: ROLES });
    await expect(promptTeam(project.dir, '   ')).rejects.toThrow('the prompt names no task');
    project.write('.team/config.json', JSON.stringify({ team: { maxFixLoops: 'three' } }));
    const { response, updates } = await promptTeam(project.dir, '2:executor a run with a bad config');
    expect(response.stopReason).toBe('end_turn');
    const message = updates.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : [])).join('');
    expect(message).toContain('team 2:executor a run with a bad config exited 2');
    expect(message).toContain('team.maxFixLoops');
  }, 60_000);
});

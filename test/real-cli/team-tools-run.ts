// Whole runs of the real CLI with the team tools of `team mcp`, through the built `team`: the
// scripted model (model-server/team-tools.ts) calls the tools as a model would.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect, it } from 'vitest';
import { eventsOf } from '../helpers/agent-project.js';
import { waitFor, waitForEvent } from '../helpers/wait-event.js';
import type { RealCliContext } from './suite.js';
import { taskContent, taskFile } from './model-server/scenario.js';
import { OK_KEY } from './model-server/server.js';
import type { ModelCall } from './model-server/turn.js';
import { dependentMessage, leadMessage, SHARED_FILE, TEAM_TOOLS_MARK } from './model-server/team-tools.js';
import { expectNoProcessLeft } from './leftovers.js';

// A run of plan, three exec tasks and verify, on a slow-starting CLI on a busy machine.
const RUN_TIMEOUT_MS = 300_000;
// How long an event the test waits for may take to be in the log.
const EVENT_TIMEOUT_MS = 60_000;

// A call of an exec task of `project` after `outputs` tool answers.
export function execCall(projectDir: string, taskId: string, outputs: number): (call: ModelCall) => boolean {
  return (call) => call.facts?.projectDir !== undefined && inProject(projectDir, call.facts.projectDir) && call.facts.taskId === taskId && call.facts.stage === 'team-exec' && call.outputs.length === outputs;
}

// Whether an attempt's folder is the project's or one of its worktrees', which are outside it (in
// the state folder, one folder per project named after it: src/isolation/worktree-root.ts).
export function inProject(projectDir: string, dir: string): boolean {
  return dir === projectDir || dir.startsWith(`${projectDir}/`) || dir.includes(`/teamline/worktrees/${basename(projectDir)}-`);
}

// Registers the team tools runs of `ctx.cli` (inside its describe).
export function itRunsWithTeamTools(ctx: RealCliContext): void {
  it('runs a team with its tools: tasks listed, files reserved (the second told who holds one), the lead told, results through team_done, a dependent prompted with its teammate\'s message', async () => {
    const { cli, server } = ctx;
    const run = ctx.project(OK_KEY);
    // t1 and t2 both hold their answer after their reservation until both reserved: they overlap.
    const held = ['t1', 't2'].map((id) => server.hold(execCall(run.project.dir, id, 2)));
    void Promise.all(held.map((h) => h.reached)).then(() => held.forEach((h) => h.release()));
    const result = await run.team(['2:executor', `write three files ${TEAM_TOOLS_MARK}`, '--agent', cli]);
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    const files = run.project.readRun();
    expect(eventsOf(files, 'run_completed')).toHaveLength(1);
    const branch = `team/${run.project.runId()}`;
    for (const id of ['t1', 't2', 't3']) expect(`${run.git('show', `${branch}:${taskFile(id)}`)}\n`).toBe(taskContent(cli, id));
    // Every call is in the log once.
    const byTask = (name: 'team_looked' | 'team_reserved' | 'team_progress' | 'team_result') => eventsOf(files, name).map((e) => e.task_id).sort();
    expect(byTask('team_looked')).toEqual(['t1', 't2', 't3']);
    expect(byTask('team_reserved')).toEqual(['t1', 't2', 't3']);
    expect(byTask('team_progress')).toEqual(['t1', 't2', 't3']);
    expect(eventsOf(files, 'team_result').map((e) => [e.task_id, e.status]).sort()).toEqual([['t1', 'completed'], ['t2', 'completed'], ['t3', 'completed']]);
    const toLead = eventsOf(files, 'team_message').filter((e) => e.to === 'lead');
    expect(toLead.map((e) => e.text).sort()).toEqual(['t1', 't2', 't3'].map(leadMessage));
    // The second of t1 and t2 to reserve the shared file was told who held it, in the log and in the answer its CLI passed to the model.
    const reserved = eventsOf(files, 'team_reserved').filter((e) => e.task_id !== 't3');
    const [first, second] = reserved;
    expect(first!.held).toEqual([]);
    expect(second!.held).toEqual([{ file: SHARED_FILE, worker: first!.worker, task_id: first!.task_id }]);
    const answer = server.calls.find(execCall(run.project.dir, second!.task_id!, 2))!.outputs[1]!;
    expect(answer).toContain(SHARED_FILE);
    expect(answer).toContain(first!.worker);
    // t1's message to t3 is in the log, and in t3's prompt (t3 starts after t1 ends).
    expect(eventsOf(files, 'team_message').filter((e) => e.to === 't3').map((e) => e.text)).toEqual([dependentMessage('t1', 't3')]);
    const attempt = eventsOf(files, 'attempt_spawned').find((e) => e.task_id === 't3')!;
    const prompt = readFileSync(join(run.project.dir, '.team/runs', run.project.runId(), 'attempts/t3', `a${attempt.attempt}`, 'prompt.md'), 'utf8');
    expect(prompt).toContain(`## Messages from teammates\n\n- from ${first!.task_id === 't1' ? first!.worker : second!.worker} (task t1): ${dependentMessage('t1', 't3')}`);
  }, RUN_TIMEOUT_MS);

  it('delivers `team say` at the next tool call; after a kill -9 of the orchestrator with a call open, resume answers it; a cancel reaches the worker as a shutdown request it answers with team_fail; every call recorded once', async () => {
    const { cli, server } = ctx;
    const run = ctx.project(OK_KEY);
    const [beforeReserve, beforeMessage, beforeSecondMessage] = [1, 2, 3].map((outputs) => server.hold(execCall(run.project.dir, 't1', outputs)));
    const started = run.start(['2:executor', `write three files ${TEAM_TOOLS_MARK}`, '--agent', cli]);
    await beforeReserve!.reached;
    const said = await run.project.team(['say', '--to', 't1', SAID]);
    expect(said.exitCode, said.stderr).toBe(0);
    await waitForEvent(run.project, 'team_message', (e) => e.from === 'human' && e.to === 't1', { timeoutMs: EVENT_TIMEOUT_MS });
    beforeReserve!.release();
    // The answer to its next call (team_reserve), as the CLI passed it to the model, carried the message.
    expect((await beforeMessage!.reached).outputs[1]).toContain(SAID);
    // The orchestrator dies; the worker calls team_message meanwhile, and waits for its answer.
    process.kill(started.pid, 'SIGKILL');
    await started.result;
    const attemptDir = join(run.project.dir, '.team/runs', run.project.runId(), 'attempts/t1/a1');
    const open = countCalls(attemptDir);
    beforeMessage!.release();
    await waitFor('a new call of the team tool server', () => countCalls(attemptDir) > open, EVENT_TIMEOUT_MS);
    const resumed = run.project.start(['resume'], { TEAMLINE_TEST_RUN: run.marker });
    // The resumed orchestrator answered it: the worker asks its model again.
    await beforeSecondMessage!.reached;
    const cancel = run.project.start(['cancel']);
    await waitForEvent(run.project, 'team_shutdown_requested', (e) => e.task_id === 't1', { timeoutMs: EVENT_TIMEOUT_MS });
    beforeSecondMessage!.release();
    expect((await cancel.result).exitCode).toBe(0);
    const result = await resumed.result;
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(3);
    const files = run.project.readRun();
    expect(eventsOf(files, 'run_cancelled')).toHaveLength(1);
    // The worker saw the request in its next answer and ended itself with team_fail, before any signal.
    const stopped = server.calls.find(execCall(run.project.dir, 't1', 4))!;
    expect(stopped.outputs[3]).toMatch(/shutdown/i);
    expect(stopped.step).toMatchObject({ kind: 'tool', args: { summary: 'stopped: the lead asked for a shutdown' } });
    const ofT1 = <N extends 'team_looked' | 'team_reserved' | 'team_result'>(name: N) => eventsOf(files, name).filter((e) => e.task_id === 't1');
    expect(ofT1('team_looked')).toHaveLength(1);
    expect(ofT1('team_reserved')).toHaveLength(1);
    expect(ofT1('team_result').map((e) => e.status)).toEqual(['failed']);
    expect(eventsOf(files, 'team_message').filter((e) => e.task_id === 't1').map((e) => e.to)).toEqual(['lead', 't3']);
    expect(eventsOf(files, 'attempt_spawned').filter((e) => e.task_id === 't1')).toHaveLength(1);
    await expectNoProcessLeft(run.marker);
  }, RUN_TIMEOUT_MS);
}

// How many calls the attempt's team tool server has left (answered or not).
function countCalls(attemptDir: string): number {
  const dir = join(attemptDir, 'calls');
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.call.json')).length : 0;
}

// What the person says to t1 in the test of `team say`.
const SAID = 'the lead says: keep src/shared.txt short';

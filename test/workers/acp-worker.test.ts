// Any ACP agent as a worker (issue 39): the built `team` CLI in a git repository, 2 workers, each
// attempt an ACP session through teamline's bridge (the official SDK's client) with a stub agent
// built on the SDK's agent side (test/fixtures/acp/stub-agent.mjs: its messages are checked against
// the protocol's schemas as a real agent's are; its work is the sim agent's). Bad agents — one that
// asks for a path outside the folder, writes a line that is no JSON-RPC message, exits mid-turn —
// fail their attempt with a line that says which, never hang the run.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execa } from 'execa';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GIT_ENV, makeGitProject } from '../helpers/git-project.js';
import { removeProjects } from '../helpers/project.js';
import { eventsOf } from '../helpers/sim-project.js';
import { CLI, ROOT, runTeam } from '../helpers/team.js';
import { waitFor } from '../helpers/wait-event.js';

afterAll(removeProjects);

const STUB = join(ROOT, 'test/fixtures/acp/stub-agent.mjs');
const PLAN = { plan: { tasks: [{ id: 't1', title: 'One', files: ['one.txt'] }, { id: 't2', title: 'Two', files: ['two.txt'] }] }, defaults: { sleepMs: 20 } };

// A project whose agent `acp` is the stub in ACP mode, its sim work from the project's scenario.
function acpProject(scenario: object, env: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  const project = makeGitProject(scenario, { agents: { acp: { adapter: 'acp', command: process.execPath, args: [STUB], env: { ...env }, ...extra } } });
  return project;
}

const run = (project: ReturnType<typeof acpProject>, task: string, ...args: string[]) =>
  runTeam(['2:executor', task, '--agent', 'acp', ...args], { cwd: project.dir, env: { ...GIT_ENV, TEAM_SIM_SCENARIO: join(project.dir, 'scenario.json') } });

function outputsOf(project: ReturnType<typeof acpProject>): string[] {
  const { events, paths } = project.readRun();
  return eventsOf(events, 'task_finished').map((e) => readFileSync(join(paths.attemptsDir, e.task_id, `a${e.attempt}`, 'output.log'), 'utf8'));
}

describe('an ACP agent as a worker', () => {
  it('runs the whole pipeline through ACP sessions: plan, prd, exec on 2 workers, verify; the permission answers, the tokens and cost in the log', async () => {
    const project = acpProject(PLAN);
    const result = await run(project, 'two files');
    expect(result.exitCode, result.stderr).toBe(0);
    const { events } = project.readRun();
    const finished = eventsOf(events, 'task_finished');
    expect(finished.map((e) => e.status)).not.toContain('failed');
    expect(finished.filter((e) => e.stage === 'team-exec').map((e) => e.task_id).sort()).toEqual(['t1', 't2']);
    expect(new Set(eventsOf(events, 'attempt_spawned').filter((e) => ['t1', 't2'].includes(e.task_id)).map((e) => e.worker)).size).toBe(2);
    // The work done inside the ACP sessions (the sim's) is merged into the run's branch.
    const started = events.find((e) => e.event === 'run_started');
    const branch = started?.event === 'run_started' ? started.isolation?.branch : undefined;
    expect(branch).toBeDefined();
    for (const task of ['t1', 't2']) expect(project.git('show', `${branch}:sim-output/${task}.txt`)).toContain(task);
    // Every attempt's usage came from its session: the turn's tokens and the cost the agent told.
    // (The session id is recorded as soon as the bridge names it; the spend at the turn's end.)
    const usage = eventsOf(events, 'attempt_usage').filter((e) => e.tokens !== undefined);
    expect(usage.map((u) => `${u.task_id}#${u.attempt}`).sort()).toEqual(finished.map((e) => `${e.task_id}#${e.attempt}`).sort());
    for (const u of usage) {
      expect(u.tokens).toEqual({ input: 1200, output: 100, cached: 800 });
      expect(u.cost_usd).toBe(0.01);
      expect(u.session_id).toMatch(/^stub-\d+-1$/);
    }
    // The plan stage may read: its edit was refused; exec may run: allowed. Each answer is in the output.
    const outputs = outputsOf(project);
    const answers = outputs.flatMap((o) => o.split('\n').filter((l) => l.startsWith('{"acp":"permission"')).map((l) => JSON.parse(l) as { answer: string; why: string }));
    expect(answers.some((a) => a.answer === 'reject' && a.why.includes('team-plan may only read'))).toBe(true);
    expect(answers.some((a) => a.answer === 'allow' && a.why.includes('team-exec may run'))).toBe(true);
  }, 120_000);

  it('fails an attempt whose agent asks for a path outside its folder (named, read through the client, or through a link), writes a line that is no JSON-RPC message, or exits mid-turn: each said in one line', async () => {
    const cases = [
      { mode: 'outside', says: 'the ACP agent asked to edit /etc/hosts, outside the attempt\'s folder' },
      { mode: 'read-outside', says: 'the ACP agent asked the client to read /etc/hosts, outside the attempt\'s folder' },
      { mode: 'link', says: '/escape/sub/new.txt, outside the attempt\'s folder' },
      { mode: 'garbage', says: 'the ACP agent broke the protocol: it wrote a line that is not a JSON-RPC message (not JSON)' },
      { mode: 'crash', says: 'the ACP agent exited 3 before the prompt turn ended' },
    ];
    for (const { mode, says } of cases) {
      const project = acpProject(PLAN, { STUB_ACP_MODE: mode });
      const result = await run(project, `a ${mode} agent`, '--max-fix-loops', '0');
      expect(result.exitCode, `${mode}: ${result.stderr}`).not.toBe(0);
      const failed = eventsOf(project.readRun().events, 'task_finished').filter((e) => e.status === 'failed');
      expect(failed.length, mode).toBeGreaterThan(0);
      expect(failed[0]!.evidence, mode).toContain(says);
    }
  }, 180_000);

  it('moves a session that starts in the agent\'s read-only mode to its working mode for the stages that edit or run, never to one without its sandbox', async () => {
    const project = acpProject(PLAN, { STUB_ACP_MODE: 'read-only-start' });
    const result = await run(project, 'two files');
    expect(result.exitCode, result.stderr).toBe(0);
    const modes = (task: string) => readFileSync(join(project.readRun().paths.attemptsDir, task, 'a1', 'output.log'), 'utf8').split('\n').filter((l) => l.startsWith('{"acp":"mode"')).map((l) => JSON.parse(l) as object);
    expect(modes('plan')).toEqual([]);
    expect(modes('t1')).toEqual([{ acp: 'mode', from: 'read-only', to: 'auto', why: 'team-exec may run' }]);
    expect(modes('verify-1')).toEqual([{ acp: 'mode', from: 'read-only', to: 'auto', why: 'team-verify may run' }]);
    expect(outputsOf(project).join('\n')).not.toContain('mode full-access');
  }, 120_000);

  it('brings a `team say` to a live ACP worker as a prompt turn in its session, once, after the turn it was working on', async () => {
    const release = join(tmpdir(), `teamline-acp-release-${process.pid}-${Date.now()}`);
    const project = acpProject({ plan: { tasks: [{ id: 't1', title: 'One', files: ['one.txt'] }] }, defaults: { sleepMs: 20 } }, { STUB_ACP_RELEASE_FILE: release });
    const team = execa(process.execPath, [CLI, '2:executor', 'one file', '--agent', 'acp'], { cwd: project.dir, env: { ...GIT_ENV, TEAM_SIM_SCENARIO: join(project.dir, 'scenario.json') }, reject: false });
    await waitFor('t1 to start', () => {
      try {
        return eventsOf(project.readRun().events, 'attempt_spawned').some((e) => e.task_id === 't1');
      } catch {
        return false;
      }
    }, 60_000);
    const said = await runTeam(['say', '--to', 't1', 'use tabs, not spaces'], { cwd: project.dir, env: GIT_ENV });
    expect(said.exitCode, said.stderr).toBe(0);
    // The agent's own turn ends only once the message is in the log (no race with the clock).
    await waitFor('the message in the log', () => eventsOf(project.readRun().events, 'team_message').some((m) => m.to === 't1'), 60_000);
    writeFileSync(release, '');
    const result = await team.finally(() => rmSync(release, { force: true }));
    expect(result.exitCode, result.stderr).toBe(0);
    const output = readFileSync(join(project.readRun().paths.attemptsDir, 't1', 'a1', 'output.log'), 'utf8');
    const lines = output.split('\n').filter((l) => l.startsWith('{"acp":')).map((l) => JSON.parse(l) as { acp: string; count?: number; text?: string; tokens?: object });
    expect(lines.filter((l) => l.acp === 'messages')).toEqual([{ acp: 'messages', count: 1 }]);
    const heard = lines.filter((l) => l.acp === 'message' && l.text?.startsWith('heard: '));
    expect(heard).toHaveLength(1);
    expect(heard[0]!.text).toContain('- from the person running the team: use tabs, not spaces');
    // The turn of messages came after the stage's own, and its tokens count too.
    expect(lines.findIndex((l) => l.acp === 'messages')).toBeGreaterThan(lines.findIndex((l) => l.acp === 'tool'));
    expect(lines.find((l) => l.acp === 'end')!.tokens).toEqual({ input: 1300, output: 110, cached: 800 });
  }, 120_000);

  it('authenticates with the sign-in method the config names, and says which the agent offers when it names none it has', async () => {
    const ok = acpProject(PLAN, { STUB_ACP_MODE: 'auth' }, { authMethod: 'api-key' });
    const signed = await run(ok, 'signed in');
    expect(signed.exitCode, signed.stderr).toBe(0);
    const bad = acpProject(PLAN, { STUB_ACP_MODE: 'auth' }, { authMethod: 'oauth' });
    const refused = await run(bad, 'wrong sign-in', '--max-fix-loops', '0');
    expect(refused.exitCode).not.toBe(0);
    const failed = eventsOf(bad.readRun().events, 'task_finished').find((e) => e.status === 'failed');
    expect(failed?.evidence).toContain('the ACP agent offers no sign-in method oauth (it offers: api-key)');
  }, 120_000);

  it('stops a live ACP worker on `team cancel` with session/cancel: the agent ends its turn as cancelled, and the run is cancelled', async () => {
    const project = acpProject(PLAN, { STUB_ACP_MODE: 'hang' });
    const env = { ...GIT_ENV, TEAM_SIM_SCENARIO: join(project.dir, 'scenario.json') };
    const orchestrator = execa('node', [CLI, '2:executor', 'a turn that waits', '--agent', 'acp'], { cwd: project.dir, env, reject: false, stdin: 'ignore' });
    const output = () => {
      try {
        return readFileSync(join(project.readRun().paths.attemptsDir, 'plan', 'a1', 'output.log'), 'utf8');
      } catch {
        return '';
      }
    };
    await waitFor("the planner's ACP session", () => output().includes('{"acp":"session"'), 60_000, 50);
    const cancelled = await runTeam(['cancel'], { cwd: project.dir, env });
    expect(cancelled.exitCode, cancelled.stderr).toBe(0);
    const ended = await orchestrator;
    expect(ended.exitCode).not.toBe(0);
    const lines = output().split('\n').filter((l) => l.startsWith('{"acp":'));
    expect(lines.some((l) => l.startsWith('{"acp":"stopping"'))).toBe(true);
    expect(lines, lines.join("\n")).toContain('{"acp":"end","stopReason":"cancelled"}');
    expect(project.readRun().events.some((e) => e.event === 'run_cancelled')).toBe(true);
    expect(existsSync(project.dir)).toBe(true);
  }, 120_000);
});

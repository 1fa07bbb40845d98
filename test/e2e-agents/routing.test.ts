// The built CLI routes each role to its agent: config roles, `N:<agent>`, and the PATH fallback.
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { eventsOf, makeAgentProject, removeAgentProjects, STUB_BIN } from '../helpers/agent-project.js';

const RUN_TIMEOUT_MS = 120_000;

// Per call, from the stubs' output.
const CLAUDE_USD = 0.0123;
const OPENCODE_USD = 0.0045;

// A PATH with the system's tools and none of the agent CLIs.
const SYSTEM_PATH = '/usr/bin:/bin';
const AGENT_CLIS = ['claude', 'opencode', 'codex', 'gemini'];

const folders: string[] = [];

// A PATH folder holding only a link to the gemini stub.
function makeGeminiOnlyBin(): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-gemini-only-'));
  folders.push(dir);
  symlinkSync(join(STUB_BIN, 'gemini'), join(dir, 'gemini'));
  return dir;
}

afterEach(removeAgentProjects);
afterAll(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('agent routing', () => {
  it('runs each role on its configured agent and sums cost per agent and for the run', async () => {
    const project = makeAgentProject({ PATH: `${STUB_BIN}:${process.env.PATH}` });
    project.writeConfig({ roles: { planner: 'claude', analyst: 'claude', verifier: 'claude', executor: 'opencode' } });
    const result = await project.team(['1:executor', 'add input validation to the API']);
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    const agentOf = Object.fromEntries(eventsOf(run, 'task_started').map((e) => [e.task_id, e.agent]));
    expect(agentOf).toEqual({ plan: 'claude', prd: 'claude', t1: 'opencode', 'verify-1': 'claude' });
    for (const end of eventsOf(run, 'task_finished')) expect(end.agent, end.task_id).toBe(agentOf[end.task_id]);
    const { usage } = await project.statusJson();
    expect(Object.keys(usage.byAgent).sort()).toEqual(['claude', 'opencode']);
    expect(usage.byAgent.claude!.costUsd).toBeCloseTo(3 * CLAUDE_USD, 9);
    expect(usage.byAgent.opencode!.costUsd).toBeCloseTo(OPENCODE_USD, 9);
    expect(usage.run.costUsd).toBeCloseTo(3 * CLAUDE_USD + OPENCODE_USD, 9);
    // Of the input, the stubs' provider caches served 500 a claude call and 400 an opencode run.
    expect(usage.byAgent.claude!.tokens).toEqual({ input: 3000, output: 600, cached: 1500 });
    expect(usage.byAgent.opencode!.tokens).toEqual({ input: 2500, output: 220, cached: 400 });
    expect(usage.run.tokens).toEqual({ input: 5500, output: 820, cached: 1900 });
    expect(result.stderr).toContain(`cost $${(3 * CLAUDE_USD + OPENCODE_USD).toFixed(4)}, tokens 5500 in / 820 out`);
    expect(result.stderr).toContain(`claude: $${(3 * CLAUDE_USD).toFixed(4)}, 3000/600 tokens`);
    expect(result.stderr).toContain(`opencode: $${OPENCODE_USD.toFixed(4)}, 2500/220 tokens`);
  }, RUN_TIMEOUT_MS);

  it('picks codex for exec tasks with `3:codex` while the other roles keep their agents', async () => {
    const project = makeAgentProject({ PATH: `${STUB_BIN}:${process.env.PATH}` });
    // The executor's configured agent gives way to `3:codex`; the analyst has none and falls back to PATH (claude first).
    project.writeConfig({ roles: { planner: 'opencode', verifier: 'gemini', executor: 'claude' } });
    const result = await project.team(['3:codex', 'add input validation to the API']);
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    const started = eventsOf(run, 'task_started');
    expect(started.map((e) => [e.task_id, e.stage, e.agent])).toEqual([
      ['plan', 'team-plan', 'opencode'],
      ['prd', 'team-prd', 'claude'],
      ['t1', 'team-exec', 'codex'],
      ['verify-1', 'team-verify', 'gemini'],
    ]);
    const [runStarted] = eventsOf(run, 'run_started');
    expect(runStarted).toMatchObject({ workers: 3, agentType: 'executor' });
    expect(runStarted!.agents).toMatchObject({ executor: 'codex', debugger: 'codex', planner: 'opencode', verifier: 'gemini', analyst: 'claude' });
    const { usage } = await project.statusJson();
    expect(usage.byAgent.codex).toEqual({ costUsd: 0, tokens: { input: 2000, output: 300, cached: 500 } });
  }, RUN_TIMEOUT_MS);

  it('exits 2 before making a run folder when a role has no agent and none is on PATH, saying how to configure one', async () => {
    for (const dir of SYSTEM_PATH.split(':')) for (const cli of AGENT_CLIS) expect(existsSync(join(dir, cli)), `${dir}/${cli}`).toBe(false);
    const project = makeAgentProject({ PATH: SYSTEM_PATH });
    const result = await project.team(['3:executor', 'add input validation to the API']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('no agent configured and none of claude, opencode, codex, gemini found on PATH');
    expect(result.stderr).toContain('--agent sim');
    expect(result.stderr).toContain('"roles"');
    expect(result.stderr).toContain('.team/config.json');
    expect(result.stdout).toBe('');
    expect(existsSync(join(project.dir, '.team/runs'))).toBe(false);
  }, RUN_TIMEOUT_MS);

  it('lets a user who configures only the roles the no-agent message shows start a run, or names the roles still missing', async () => {
    // The message advises `{ "roles": { "executor": ..., "planner": ... } }` (or an agent of one's own).
    // Done with no CLI on PATH, either the other roles take the configured agent, or exit 2 names each role left without one.
    const project = makeAgentProject({ PATH: SYSTEM_PATH });
    project.writeConfig({ roles: { executor: 'sim', planner: 'sim' } });
    const result = await project.team(['1:executor', 'add input validation to the API']);
    if (result.exitCode === 2) {
      for (const role of ['analyst', 'debugger', 'verifier', 'architect']) expect(result.stderr, `names ${role}`).toContain(role);
    } else {
      expect(result.exitCode, result.stderr).toBe(0);
    }
  }, RUN_TIMEOUT_MS);

  it('uses gemini for every role when it is the only agent CLI on PATH', async () => {
    const project = makeAgentProject({ PATH: `${makeGeminiOnlyBin()}:${SYSTEM_PATH}` });
    const result = await project.team(['1:executor', 'add input validation to the API']);
    expect(result.exitCode, result.stderr).toBe(0);
    const run = project.readRun();
    expect(new Set(eventsOf(run, 'task_started').map((e) => e.agent))).toEqual(new Set(['gemini']));
    expect(eventsOf(run, 'run_started')[0]).toMatchObject({ defaultAgent: 'gemini' });
    const { usage } = await project.statusJson();
    expect(Object.keys(usage.byAgent)).toEqual(['gemini']);
    expect(usage.run.tokens).toEqual({ input: 4 * 1500, output: 4 * 200 });
  }, RUN_TIMEOUT_MS);
});

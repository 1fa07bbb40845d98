// The built CLI drives each real agent CLI (played by the stubs in test/fixtures/bin) through a
// whole pipeline, and sums the cost and tokens their machine output reports.
import { chmodSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, makeAgentProject, removeAgentProjects, STUB_BIN, type AgentProject } from '../helpers/agent-project.js';
import type { TeamResult } from '../helpers/team.js';

const RUN_TIMEOUT_MS = 120_000;

const stubLib = createRequire(import.meta.url)('../fixtures/bin/stub-lib.cjs') as {
  makeStubId(cli: string, team: { runId: string; taskId: string; attempt: string }): string;
};

interface CliCase {
  cli: string;
  /** USD per call, as the stub reports it (0: the CLI reports tokens only). */
  cost: number;
  /** `cached`: of the input, what the stub says its provider's cache served. */
  tokens: { input: number; output: number; cached?: number };
  /** The session id the stub prints for an attempt; undefined for a CLI that prints none. */
  sessionId?: (runId: string, taskId: string, attempt: number) => string;
}

const stubId = (cli: string) => (runId: string, taskId: string, attempt: number) => stubLib.makeStubId(cli, { runId, taskId, attempt: String(attempt) });

// Per call, from the stubs' own output (see each stub's header comment).
const CLIS: CliCase[] = [
  { cli: 'claude', cost: 0.0123, tokens: { input: 1000, output: 200, cached: 500 }, sessionId: stubId('claude') },
  { cli: 'codex', cost: 0, tokens: { input: 2000, output: 300, cached: 500 }, sessionId: stubId('codex') },
  { cli: 'gemini', cost: 0, tokens: { input: 1500, output: 200 }, sessionId: stubId('gemini') },
  {
    cli: 'opencode',
    cost: 0.0045,
    tokens: { input: 2500, output: 220, cached: 400 },
    sessionId: (...args) => `ses_${stubId('opencode')(...args).replace(/-/g, '').slice(0, 26)}`,
  },
  // Aider prints no session id: only its "Tokens: ... Cost: ..." line.
  { cli: 'aider', cost: 0.0067, tokens: { input: 3100, output: 412 } },
];

afterAll(removeAgentProjects);

describe('agent adapters', () => {
  describe.each(CLIS)('$cli', ({ cli, cost, tokens, sessionId }) => {
    let project: AgentProject;
    let result: TeamResult;

    beforeAll(async () => {
      project = makeAgentProject({ PATH: `${STUB_BIN}:${process.env.PATH}` });
      result = await project.team(['1:executor', 'add input validation to the API', '--agent', cli]);
    }, RUN_TIMEOUT_MS);

    it('completes a pipeline run with --agent, every attempt on the CLI', async () => {
      expect(result.exitCode, result.stderr).toBe(0);
      const run = project.readRun();
      expect(eventsOf(run, 'run_completed')).toHaveLength(1);
      const started = eventsOf(run, 'task_started');
      // The stubs plan one task t1 without acceptance criteria: plan, prd, t1, verify-1.
      expect(started.map((e) => e.task_id)).toEqual(['plan', 'prd', 't1', 'verify-1']);
      expect(new Set(started.map((e) => e.agent))).toEqual(new Set([cli]));
      const status = await project.statusJson();
      for (const task of status.tasks) expect(task.status, task.id).toBe('completed');
    });

    it('records the session id, cost and tokens of every attempt and sums them per stage, agent and run', async () => {
      expect(result.exitCode, result.stderr).toBe(0);
      const runId = project.runId();
      const run = project.readRun();
      const usage = eventsOf(run, 'attempt_usage');
      const calls = eventsOf(run, 'task_started').length;
      for (const end of eventsOf(run, 'task_finished')) {
        const mine = usage.filter((u) => u.task_id === end.task_id && u.attempt === end.attempt);
        expect(mine.length, `attempt_usage of ${end.task_id}`).toBeGreaterThan(0);
        expect(mine.every((u) => u.file < end.file && u.agent === cli)).toBe(true);
        const ids = mine.map((u) => u.session_id).filter((id) => id !== undefined);
        if (sessionId) expect(new Set(ids), end.task_id).toEqual(new Set([sessionId(runId, end.task_id, end.attempt)]));
        else expect(ids).toEqual([]);
      }
      const status = await project.statusJson();
      const total = { costUsd: calls * cost, tokens: { input: calls * tokens.input, output: calls * tokens.output, ...(tokens.cached !== undefined && { cached: calls * tokens.cached }) } };
      expect(status.usage.run.costUsd).toBeCloseTo(total.costUsd, 9);
      expect(status.usage.run.tokens).toEqual(total.tokens);
      expect(Object.keys(status.usage.byAgent)).toEqual([cli]);
      expect(status.usage.byAgent[cli]!.costUsd).toBeCloseTo(total.costUsd, 9);
      expect(status.usage.byAgent[cli]!.tokens).toEqual(total.tokens);
      expect(status.usage.byStage['team-exec']!.tokens).toEqual(tokens);
      expect(status.usage.byStage['team-exec']!.costUsd).toBeCloseTo(cost, 9);
      for (const task of status.tasks) {
        expect(task.attempts[0]!.sessionId, task.id).toBe(sessionId?.(runId, task.id, 1));
        expect(task.attempts[0]!.costUsd, task.id).toBeCloseTo(cost, 9);
      }
    });

    it('shows the run\'s cost and tokens, and the CLI\'s share, in the final summary on stderr', async () => {
      expect(result.exitCode, result.stderr).toBe(0);
      const calls = eventsOf(project.readRun(), 'task_started').length;
      const dollars = `$${(calls * cost).toFixed(4)}`;
      expect(result.stderr).toContain(`cost ${dollars}, tokens ${calls * tokens.input} in / ${calls * tokens.output} out`);
      expect(result.stderr).toContain(`${cli}: ${dollars}, ${calls * tokens.input}/${calls * tokens.output} tokens`);
      expect(result.stdout).toBe('');
    });
  });

  describe('a hostile CLI\'s usage', () => {
    it('is not taken when it reports a negative cost: a run\'s spend never shrinks, and a budget still stops it', async () => {
      const project = makeAgentProject({ PATH: `${STUB_BIN}:${process.env.PATH}` });
      // claude's result line as the stub prints it, with its cost made negative on the way out.
      const hostile = project.write('minus-claude', `#!/bin/sh\n"${join(STUB_BIN, 'claude')}" "$@" | sed 's/"total_cost_usd":[0-9.]*/"total_cost_usd":-1000/'\n`);
      chmodSync(hostile, 0o755);
      project.writeConfig({ team: { shutdownTimeoutMs: 500 }, agents: { minus: { adapter: 'claude', command: hostile } } });
      const result = await project.team(['1:executor', 'add input validation to the API', '--agent', 'minus', '--budget-tokens', '1000']);
      const usage = eventsOf(project.readRun(), 'attempt_usage').filter((u) => u.tokens !== undefined);
      expect(usage.length).toBeGreaterThan(0);
      for (const u of usage) expect(u.cost_usd, JSON.stringify(u)).toBeUndefined();
      expect(result.stderr).not.toMatch(/cost \$-/);
      // Its tokens still count: the token budget stops the run as for any CLI.
      expect(result.exitCode, result.stderr).toBe(4);
    }, RUN_TIMEOUT_MS);
  });

  describe('session id', () => {
    it('is recorded while the CLI still runs, as soon as its output shows it', async () => {
      const project = makeAgentProject({ PATH: `${STUB_BIN}:${process.env.PATH}` });
      // codex prints thread.started first; this one then lingers for 3 s before it exits.
      const slow = project.write('slow-codex', `#!/bin/sh\n"${join(STUB_BIN, 'codex')}" "$@"\nstatus=$?\nsleep 3\nexit $status\n`);
      chmodSync(slow, 0o755);
      project.writeConfig({ agents: { slowcodex: { adapter: 'codex', command: slow } } });
      const result = await project.team(['1:executor', 'add input validation to the API', '--agent', 'slowcodex']);
      expect(result.exitCode, result.stderr).toBe(0);
      const run = project.readRun();
      const runId = project.runId();
      // The wrapper writes exit.json when the CLI has ended: its mtime is that moment.
      const endedAt = statSync(join(project.dir, '.team/runs', runId, 'attempts/t1/a1/exit.json')).mtimeMs;
      const usage = eventsOf(run, 'attempt_usage').filter((u) => u.task_id === 't1' && u.attempt === 1);
      const early = usage.filter((u) => u.session_id !== undefined && u.tokens === undefined);
      expect(early, JSON.stringify(usage)).toHaveLength(1);
      expect(early[0]!.session_id).toBe(stubId('codex')(runId, 't1', 1));
      expect(Date.parse(early[0]!.at)).toBeLessThan(endedAt);
      const t1 = (await project.statusJson()).tasks.find((t) => t.id === 't1')!;
      expect(t1.attempts[0]).toMatchObject({ sessionId: stubId('codex')(runId, 't1', 1), costUsd: 0, tokens: { input: 2000, output: 300 } });
    }, RUN_TIMEOUT_MS);
  });
});

// --cost-mode end to end: the built CLI picks each role's model tier per CLI, records it in
// run_started, shows it in status and the report, and each CLI (the stubs of test/fixtures/bin,
// strict about their flags like the real ones) receives the model in its argv.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, makeAgentProject, removeAgentProjects, STUB_BIN, type AgentProject } from '../helpers/agent-project.js';
import type { TeamResult } from '../helpers/team.js';

const RUN_TIMEOUT_MS = 120_000;
// The planner, analyst and verifier on claude; the executor on codex.
const ROLES = { planner: 'claude', analyst: 'claude', verifier: 'claude', architect: 'claude', executor: 'codex' };

afterAll(removeAgentProjects);

// What each CLI call got: the attempt's role and the value after --model.
function modelsSeen(project: AgentProject): Array<[string, string, string | undefined]> {
  const lines = readFileSync(join(project.dir, 'argv.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { cli: string; role: string; argv: string[] });
  return lines.map((l) => [l.cli, l.role, l.argv.includes('--model') ? l.argv[l.argv.indexOf('--model') + 1] : undefined]);
}

describe('cost mode', () => {
  describe('economy with the built-in tiers', () => {
    let project: AgentProject;
    let result: TeamResult;

    beforeAll(async () => {
      project = makeAgentProject({ PATH: `${STUB_BIN}:${process.env.PATH}` });
      project.writeConfig({ roles: ROLES });
      result = await project.team(['2:executor', 'add input validation to the API', '--cost-mode', 'economy'], { STUB_ARGV_LOG: join(project.dir, 'argv.jsonl') });
    }, RUN_TIMEOUT_MS);

    it('gives each CLI the model of its role\'s tier, verify never below the middle one', () => {
      expect(result.exitCode, result.stderr).toBe(0);
      expect(modelsSeen(project)).toEqual([
        ['claude', 'planner', 'sonnet'],
        ['claude', 'analyst', 'haiku'],
        ['codex', 'executor', 'gpt-5-codex-mini'],
        ['claude', 'verifier', 'sonnet'],
      ]);
    });

    it('records the cost mode and the models in run_started, and shows them in status and the report', async () => {
      const started = eventsOf(project.readRun(), 'run_started')[0]!;
      expect(started.costMode).toBe('economy');
      expect(started.models).toMatchObject({ planner: 'sonnet', analyst: 'haiku', executor: 'gpt-5-codex-mini', verifier: 'sonnet', 'security-reviewer': 'sonnet', debugger: 'gpt-5-codex' });
      const status = await project.team(['status']);
      expect(status.stdout).toMatch(/models economy: .*executor gpt-5-codex-mini.*planner sonnet/);
      const report = await project.team(['report', '--out', 'r.html']);
      expect(report.exitCode, report.stderr).toBe(0);
      expect(existsSync(join(project.dir, 'r.html'))).toBe(true);
      expect(readFileSync(join(project.dir, 'r.html'), 'utf8')).toContain('"costMode":"economy"');
    });
  });

  describe('quality from the config, with a table of its own and a pinned model', () => {
    let project: AgentProject;
    let result: TeamResult;

    beforeAll(async () => {
      project = makeAgentProject({ PATH: `${STUB_BIN}:${process.env.PATH}` });
      project.writeConfig({
        team: { costMode: 'quality' },
        models: { codex: ['c-low', 'c-mid', 'c-high'] },
        agents: { 'claude-pinned': { adapter: 'claude', model: 'claude-pinned-model' } },
        roles: { ...ROLES, verifier: 'claude-pinned' },
      });
      result = await project.team(['1:executor', 'add input validation to the API'], { STUB_ARGV_LOG: join(project.dir, 'argv.jsonl') });
    }, RUN_TIMEOUT_MS);

    it('takes the config\'s table, and leaves an agent\'s own model alone', () => {
      expect(result.exitCode, result.stderr).toBe(0);
      expect(modelsSeen(project)).toEqual([
        ['claude', 'planner', 'opus'],
        ['claude', 'analyst', 'opus'],
        ['codex', 'executor', 'c-high'],
        ['claude', 'verifier', 'claude-pinned-model'],
      ]);
      expect(eventsOf(project.readRun(), 'run_started')[0]!.models).not.toHaveProperty('verifier');
    });
  });

  it('refuses an unknown cost mode with the values it takes (exit 2)', async () => {
    const project = makeAgentProject({ PATH: `${STUB_BIN}:${process.env.PATH}` });
    const result = await project.team(['1:executor', 'add input validation', '--cost-mode', 'cheap']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--cost-mode must be one of economy, balanced, quality, not "cheap"');
  });
});

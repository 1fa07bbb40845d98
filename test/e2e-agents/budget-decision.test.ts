// A run stopped for its budget (exit 4) as a user meets it: `team status` lists the decision with the
// command that goes on, naming the flag of the budget that ran out. The built `team`, a git project,
// and a tiny opencode-like agent (test/fixtures/agents/costly-opencode.js) that reports 1100 tokens
// and $0.50 in its first step, then keeps working.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitAsRepo, GIT_ENV } from '../helpers/git-project.js';
import { eventsOf, makeAgentProject, removeAgentProjects } from '../helpers/agent-project.js';
import { waitForEvent } from '../helpers/wait-event.js';
import { ROOT } from '../helpers/team.js';

afterEach(async () => {
  await removeAgentProjects();
});

describe('a run stopped for its budget', () => {
  it('shows the token budget stop in needs attention with `team resume --budget-tokens N`, in text and --json', async () => {
    const project = makeAgentProject({ ...GIT_ENV });
    project.write('README.md', '# budget\n');
    project.writeConfig({ team: { shutdownTimeoutMs: 500 }, agents: { oc: { adapter: 'opencode', command: join(ROOT, 'test/fixtures/agents/costly-opencode.js') } } });
    commitAsRepo(project.dir);
    const result = await project.team(['2:executor', 'a planner that spends tokens', '--agent', 'oc', '--budget-tokens', '500', '--budget-usd', '5']);
    expect(result.exitCode, result.stderr).toBe(4);
    const id = project.runId();
    const files = project.readRun();
    expect(eventsOf(files, 'budget_exceeded')).toEqual([expect.objectContaining({ spent_tokens: 1100, parts: ['tokens'] })]);
    const stopped = eventsOf(files, 'run_stopped')[0]!.reason;
    expect(stopped).toBe('budget spent: $0.50 of $5.00, 1100 of 500 tokens; `team resume --budget-tokens N` raises it and goes on');
    // The attempt the budget stopped says so, not "cancel": nobody cancelled the run.
    const interrupted = eventsOf(files, 'task_finished').filter((e) => e.status === 'interrupted');
    expect(interrupted.length).toBeGreaterThan(0);
    for (const e of interrupted) expect(e.evidence).toMatch(/^stopped: budget spent: \$0\.50 of \$5\.00, 1100 of 500 tokens/);
    const status = await project.team(['status']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).not.toContain('needs attention: nothing');
    expect(status.stdout).toContain(`needs attention:\n  decision needed: budget spent: $0.50 of $5.00, 1100 of 500 tokens; \`team resume --run ${id} --budget-tokens N\` raises it and goes on`);
    expect(status.stdout).toContain('spent: no attempt starts until `team resume --budget-tokens N` raises it');
    expect(status.stdout).not.toContain('--budget-usd X');
    // No retry-interrupted decision: a raised budget tries the stopped attempt again.
    expect(status.stdout).not.toContain('--retry-interrupted');
    const json = JSON.parse((await project.team(['status', '--json'])).stdout) as { attention: { budget: string | null } };
    expect(json.attention.budget).toContain(`\`team resume --run ${id} --budget-tokens N\``);
  }, 60_000);

  it('raises the budget of a live run through its writer inbox: budget_raised, and the run is no longer held', async () => {
    const project = makeAgentProject({ ...GIT_ENV });
    project.write('README.md', '# budget\n');
    // onExceed finish: the planner (which never ends) keeps running once the budget is spent, so the run stays live.
    project.writeConfig({ team: { shutdownTimeoutMs: 500, budget: { usd: 0.3, onExceed: 'finish' } }, agents: { oc: { adapter: 'opencode', command: join(ROOT, 'test/fixtures/agents/costly-opencode.js') } } });
    commitAsRepo(project.dir);
    const run = project.start(['2:executor', 'a planner that spends and goes on', '--agent', 'oc']);
    await waitForEvent(project, 'budget_exceeded', () => true, { timeoutMs: 30_000 });
    const id = project.runId();
    const low = await project.team(['resume', '--budget-usd', '0.4']);
    expect(low.exitCode).toBe(2);
    expect(low.stderr).toContain('team resume: --budget-usd 0.4 is not above what the run spent ($0.50 of $0.30): give a larger budget');
    const raised = await project.team(['resume', '--budget-usd', '5']);
    expect(raised.exitCode, raised.stderr).toBe(0);
    expect(raised.stdout).toContain(`asked run ${id}, which an orchestrator drives now, to raise its budget to $5.00`);
    const event = await waitForEvent(project, 'budget_raised', () => true, { timeoutMs: 10_000 });
    expect(event).toMatchObject({ usd: 5, key: expect.stringMatching(/^budget-/) });
    const status = await project.team(['status']);
    expect(status.stdout).toContain('budget: $0.50 of $5.00 (10%)\n');
    expect(status.stdout).not.toContain('decision needed');
    expect((await project.team(['cancel'])).exitCode).toBe(0);
    await run.result;
    expect(eventsOf(project.readRun(), 'budget_raised')).toHaveLength(1);
  }, 60_000);
});

describe('the sim agent with a usage report', () => {
  it('spends what its scenario says per attempt, so a --budget-usd run of the sim stops for the decision (exit 4)', async () => {
    const project = makeAgentProject({ ...GIT_ENV });
    project.write('README.md', '# sim budget\n');
    project.write('scenario.json', JSON.stringify({ plan: { tasks: [{ id: 't1', title: 'one' }, { id: 't2', title: 'two' }] }, defaults: { usage: { costUsd: 0.2, tokens: { input: 1000, output: 200 } } }, stages: { 'team-exec': { sleepMs: 300 } } }));
    project.writeConfig({ team: { shutdownTimeoutMs: 500 }, agents: { sim: { adapter: 'sim', scenario: 'scenario.json' } } });
    commitAsRepo(project.dir);
    const result = await project.team(['2:executor', 'two parts on a small budget', '--agent', 'sim', '--budget-usd', '0.3']);
    expect(result.exitCode, result.stderr).toBe(4);
    expect(result.stderr).toContain('budget spent: $0.40 of $0.30');
    const files = project.readRun();
    expect(eventsOf(files, 'attempt_usage').find((e) => e.task_id === 'plan')).toMatchObject({ cost_usd: 0.2, tokens: { input: 1000, output: 200 } });
    expect(eventsOf(files, 'budget_exceeded')).toEqual([expect.objectContaining({ parts: ['usd'] })]);
    const status = await project.team(['status']);
    expect(status.stdout).toContain(`decision needed: budget spent: $0.40 of $0.30; \`team resume --run ${project.runId()} --budget-usd X\` raises it and goes on`);
  }, 60_000);
});

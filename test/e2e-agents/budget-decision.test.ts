// A run stopped for its budget (exit 4) as a user meets it: `team status` lists the decision with the
// command that goes on, naming the flag of the budget that ran out. The built `team`, a git project,
// and a tiny opencode-like agent (test/fixtures/agents/costly-opencode.js) that reports 1100 tokens
// and $0.50 in its first step, then keeps working.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitAsRepo, GIT_ENV } from '../helpers/git-project.js';
import { eventsOf, makeAgentProject, removeAgentProjects } from '../helpers/agent-project.js';
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
});

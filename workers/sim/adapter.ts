// The `sim` adapter: runs the compiled sim agent with the current Node, pointing it at the scenario.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSimUsage } from './usage.js';
import { spendOf } from '../adapters/spend.js';
import type { AdapterInput, AgentAdapter, AgentCommand, AgentReport } from '../types.js';

// The compiled sim agent's absolute path; from the TypeScript source (tests) it is the built copy in dist.
export function resolveSimAgentPath(moduleUrl: string = import.meta.url): string {
  const here = fileURLToPath(moduleUrl);
  if (here.endsWith('.ts')) return resolve(dirname(here), '../../dist/workers/sim/sim-agent.js');
  return join(dirname(here), 'sim-agent.js');
}

export const sim: AgentAdapter = {
  // Its ledger (TEAM_SIM_LEDGER, the tests' record of the work done) may be kept outside the working folder.
  // Its scenario may call the team tools through a client of its own (workers/sim/tools.ts).
  facts: { byName: true, ownToolClient: true, state: (env) => ({ dirs: env.TEAM_SIM_LEDGER ? [dirname(resolve(env.TEAM_SIM_LEDGER))] : [] }) },
  name: 'sim',
  build(input: AdapterInput): AgentCommand {
    const { agent, projectDir } = input;
    const scenarioEnv: Record<string, string> = agent.scenario ? { TEAM_SIM_SCENARIO: resolve(projectDir, agent.scenario) } : {};
    return {
      file: process.execPath,
      args: [resolveSimAgentPath(), ...(agent.args ?? [])],
      env: { ...scenarioEnv, ...agent.env },
    };
  },
  // The sim has no machine output of its own: its result file (or fenced json) is what counts, and
  // its `sim: usage` line (a scenario's usage) what it spent.
  parse(output: string): AgentReport {
    return { ok: true, finalText: output, ...readSimUsage(output) };
  },
  // Its `sim: usage` line as soon as it is printed (a scenario's `usageEarly` prints it before the sleep).
  spendSoFar: (partialOutput) => spendOf({ ok: true, ...readSimUsage(partialOutput) }),
};

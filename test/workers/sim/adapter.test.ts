import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveSimAgentPath, sim } from '../../../workers/sim/adapter.js';
import type { AdapterInput } from '../../../workers/types.js';
import { ensureSimBuilt, ROOT, SIM_AGENT } from './run-sim.js';

function makeInput(agent: AdapterInput['agent']): AdapterInput {
  return { prompt: 'p', promptFile: '/p/prompt.md', resultFile: '/p/result.json', projectDir: '/work/project', agent, stage: 'team-exec', permission: 'edit' };
}

describe('adapter', () => {
  beforeAll(ensureSimBuilt);

  it('runs the compiled sim agent with the current node', () => {
    const command = sim.build(makeInput({ adapter: 'sim' }));
    expect(command).toEqual({ file: process.execPath, args: [SIM_AGENT], env: {} });
    expect(existsSync(command.args[0] as string)).toBe(true);
  });

  it('resolves the scenario against the project and lets the agent env override', () => {
    const command = sim.build(makeInput({ adapter: 'sim', scenario: 'scenarios/a.json', env: { EXTRA: '1' } }));
    expect(command.env).toEqual({ TEAM_SIM_SCENARIO: '/work/project/scenarios/a.json', EXTRA: '1' });
    const absolute = sim.build(makeInput({ adapter: 'sim', scenario: '/abs/b.json' }));
    expect(absolute.env).toEqual({ TEAM_SIM_SCENARIO: '/abs/b.json' });
  });

  it('finds sim-agent.js beside the compiled adapter', () => {
    const compiledAdapter = `file://${join(ROOT, 'dist/workers/sim/adapter.js')}`;
    expect(resolveSimAgentPath(compiledAdapter)).toBe(SIM_AGENT);
  });

  it('reports ok with the whole output as final text', () => {
    expect(sim.parse('```json\n{}\n```')).toEqual({ ok: true, finalText: '```json\n{}\n```' });
  });
});

describe('the sim usage line', () => {
  it('reads the last valid usage line as cost and tokens, and nothing from a malformed or negative one', () => {
    const out = 'sim: start\nsim: usage {"cost_usd":0.1}\nsim: usage {"cost_usd":0.25,"tokens":{"input":1000,"output":200}}\n```json\n{}\n```\n';
    expect(sim.parse(out)).toMatchObject({ ok: true, costUsd: 0.25, tokens: { input: 1000, output: 200 } });
    expect(sim.parse('sim: usage {"cost_usd":-1}\n')).not.toHaveProperty('costUsd');
    expect(sim.parse('sim: usage {not json\n')).toEqual({ ok: true, finalText: 'sim: usage {not json\n' });
    expect(sim.parse('sim: usage {"cost_usd":1,"extra":"x"}\n')).not.toHaveProperty('costUsd');
  });

  it('is read as the spend so far of a running attempt, and nothing before it is printed', () => {
    expect(sim.spendSoFar!('sim: team-exec t1 attempt 1 started\nsim: usage {"cost_usd":0.5}\n')).toEqual({ costUsd: 0.5 });
    expect(sim.spendSoFar!('sim: team-exec t1 attempt 1 started\n')).toBeUndefined();
  });
});

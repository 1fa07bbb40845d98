import { describe, expect, it } from 'vitest';
import { ADAPTER_NAMES, agentsByName, CLI_ADAPTERS, getAdapter, initClis, initFacts, loginClis, pathPreference } from '../../../workers/adapters/index.js';
import { agentSchema } from '../../../config/schema.js';
import { CLIS } from '../../../src/commands/init/files.js';
import { INIT_FLAGS } from '../../../src/commands/args/init-flags.js';
import { sim as simAdapter } from '../../../workers/sim/adapter.js';
import { BUILTIN_AGENT_NAMES } from '../../../config/load.js';
import { AGENT_CLIS } from '../../../src/commands/doctor/agents.js';
import type { AgentAdapter } from '../../../workers/types.js';

describe('index', () => {
  it('names every CLI adapter after its key', () => {
    for (const [name, adapter] of Object.entries(CLI_ADAPTERS)) expect(adapter.name).toBe(name);
  });

  it('covers every adapter name except sim', () => {
    expect(ADAPTER_NAMES.filter((name) => getAdapter(name) === undefined)).toEqual(['sim']);
  });

  it('finds sim in the extra registry the runtime passes in', () => {
    const sim: AgentAdapter = { name: 'sim', build: () => ({ file: 'sim', args: [] }), parse: () => ({ ok: true }) };
    expect(getAdapter('sim', { sim })).toBe(sim);
    expect(getAdapter('claude', { sim })).toBe(CLI_ADAPTERS.claude);
  });

  it('derives every list of CLIs from the adapters’ catalogue records', () => {
    // Routing tries these on PATH, in this order, when a role has no agent.
    expect(pathPreference()).toEqual(['claude', 'opencode', 'codex', 'gemini']);
    // Usable by name with no `agents` entry: every CLI but `command` (it needs one), and sim.
    expect(agentsByName({ sim: simAdapter })).toEqual(['claude', 'codex', 'gemini', 'opencode', 'aider', 'sim']);
    expect([...BUILTIN_AGENT_NAMES]).toEqual(agentsByName({ sim: simAdapter }));
    // team doctor looks for these logins, in this order.
    expect(AGENT_CLIS).toEqual(loginClis().map((a) => a.name));
    expect(AGENT_CLIS).toEqual(['claude', 'codex', 'gemini', 'opencode', 'aider']);
    // The cost modes' tiers: three models, cheapest first, for the CLIs that name them.
    const tiers = Object.values(CLI_ADAPTERS).flatMap((a) => (a.facts?.tiers ? [[a.name, a.facts.tiers[0]]] : []));
    expect(tiers).toEqual([['claude', 'haiku'], ['codex', 'gpt-5-codex-mini'], ['gemini', 'gemini-2.5-flash-lite']]);
    // The config's adapter names: the catalogue's, and sim; the schema takes each and names them when it refuses one.
    expect(ADAPTER_NAMES).toEqual(['claude', 'codex', 'gemini', 'opencode', 'aider', 'command', 'acp', 'sim']);
    for (const adapter of ADAPTER_NAMES) expect(agentSchema.safeParse({ adapter, command: 'x' }).success, adapter).toBe(true);
    expect(agentSchema.safeParse({ adapter: 'cursor' }).error?.issues[0]?.message).toBe(`Invalid option: expected one of ${ADAPTER_NAMES.map((name) => `"${name}"`).join('|')}`);
    // team init: the CLIs with command files, in their records' order, each with its flag, and nothing else.
    expect(CLIS).toEqual(['claude', 'opencode', 'gemini', 'codex']);
    expect(initClis().map((a) => a.name)).toEqual(CLIS);
    expect(Object.keys(INIT_FLAGS).filter((flag) => getAdapter(flag) !== undefined)).toEqual(CLIS);
    expect(Object.entries(INIT_FLAGS).find(([flag]) => flag === 'codex')?.[1].help).toBe('set up Codex (the skill $team)');
    expect(() => initFacts('aider')).toThrow('no command files for the agent CLI "aider"');
    // The CLIs that cap an attempt's spend themselves (the watch leaves them to it).
    expect(Object.values(CLI_ADAPTERS).filter((a) => a.facts?.capsSpend).map((a) => a.name)).toEqual(['claude']);
  });
});

import { describe, expect, it } from 'vitest';
import { CLI_ADAPTERS, getAdapter } from '../../../workers/adapters/index.js';
import { ADAPTER_NAMES, type AgentAdapter } from '../../../workers/types.js';

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
});

import { describe, expect, it } from 'vitest';
import { acp } from '../../../workers/adapters/acp.js';
import { makeInput } from './fixtures.js';

describe('acp', () => {
  it("starts gemini's ACP mode once (no second node for a larger heap), and leaves the other agents' env as given", () => {
    const env = (command: string, own?: Record<string, string>) => acp.build(makeInput({ adapter: 'acp', command, args: ['--acp'], ...(own && { env: own }) })).env;
    expect(env('gemini')).toMatchObject({ GEMINI_CLI_NO_RELAUNCH: 'true' });
    expect(env('/usr/local/bin/gemini')).toMatchObject({ GEMINI_CLI_NO_RELAUNCH: 'true' });
    expect(env('gemini', { GEMINI_CLI_NO_RELAUNCH: '' })).toMatchObject({ GEMINI_CLI_NO_RELAUNCH: '' });
    expect(env('opencode')).not.toHaveProperty('GEMINI_CLI_NO_RELAUNCH');
  });
});

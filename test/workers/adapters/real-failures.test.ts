// The adapters read the real CLIs' recorded output (test/fixtures/cli/<cli>/real-*.txt, recorded
// by the real-CLI tests against the scripted model server): whole runs are successes, a refused
// key is a failure no retry can fix, both in the final output and while it streams.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_ADAPTERS } from '../../../workers/adapters/index.js';
import { CLI_FIXTURES, readFixture } from './fixtures.js';

const CLIS = ['claude', 'codex', 'gemini', 'opencode'] as const;

describe.each(CLIS)('%s on its real recorded output', (cli) => {
  const adapter = CLI_ADAPTERS[cli];

  it('reads every attempt of a whole run as a success with no failure', () => {
    const runs = readdirSync(`${CLI_FIXTURES}${cli}`).filter((name) => name.startsWith('real-run-'));
    expect(runs.length).toBeGreaterThan(0);
    for (const name of runs) expect(adapter.parse(readFixture(cli, name)), name).toMatchObject({ ok: true });
    for (const name of runs) expect(adapter.parse(readFixture(cli, name)).failure, name).toBeUndefined();
  });

  it('reads a refused key as a failure no retry can fix, naming the CLI', () => {
    const failure = adapter.parse(readFixture(cli, 'real-bad-key-plan.txt')).failure;
    expect(failure).toMatchObject({ kind: 'bad-key', retryable: false });
    expect(failure?.reason.startsWith(`${cli}: the API key was refused (`)).toBe(true);
  });
});

describe('early stops on real output', () => {
  it('sees claude\'s and codex\'s refused key in their streamed lines, before they give up', () => {
    for (const cli of ['claude', 'codex'] as const) {
      const lines = readFixture(cli, 'real-bad-key-plan.txt').split('\n');
      expect(CLI_ADAPTERS[cli].scan?.(lines.slice(0, 4)).failure, cli).toMatchObject({ kind: 'bad-key' });
    }
  });
});

// A tmux server the run started is ended with the run, also when the first pane it was started for
// failed to open (nothing in the log names that server): no orphaned tmux server is left.
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkerRegistry } from '../../../src/session/registry.js';
import { resolveTarget, runTmux, toServerName } from '../../../workers/tmux/tmux-run.js';
import { makeTestRun, toNodeCommand, type TestRun } from './tmux-test-run.js';

let run: TestRun;
// Whether the run's server answers.
const hasServer = async (of: TestRun) => (await runTmux(resolveTarget(toServerName(of.runId), of.options), ['list-sessions'])).ok;
let saved: string | undefined;

beforeEach(async () => {
  run = await makeTestRun();
  // The registry's backend finds the server where the orchestrator's environment points.
  saved = process.env.TMUX_TMPDIR;
  process.env.TMUX_TMPDIR = run.options.socketDir;
});

afterEach(async () => {
  if (saved === undefined) delete process.env.TMUX_TMPDIR;
  else process.env.TMUX_TMPDIR = saved;
  expect(await run.cleanup()).toEqual({ socketLeft: false });
});

describe('the run\'s tmux servers', () => {
  it('are killed with the run when the first pane could not be opened and recorded', async () => {
    const registry = new WorkerRegistry({ handles: new Map(), gateGroups: [] });
    const spec = await run.makeSpec('t1', toNodeCommand('tmux-result.js'));
    await expect(registry.backend('tmux').launch(spec, () => { throw new Error('the log cannot be written'); })).rejects.toThrow('the log cannot be written');
    expect(registry.all()).toEqual([]);
    expect(await hasServer(run)).toBe(true);
    await registry.killTmuxServers(run.runId);
    expect(await hasServer(run)).toBe(false);
    expect(existsSync(run.socketPath)).toBe(false);
  });
});

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { launchAttempt } from '../../../workers/tmux/launch.js';
import { listTargetPanes } from '../../../workers/tmux/panes.js';
import { resolveTarget, toServerName } from '../../../workers/tmux/tmux-run.js';
import { makeTestRun, toNodeCommand, type TestRun } from './tmux-test-run.js';

let run: TestRun;

beforeEach(async () => {
  run = await makeTestRun();
});

afterEach(async () => {
  expect(await run.cleanup()).toEqual({ socketLeft: false });
});

describe('tmux launch', () => {
  it('never releases an agent whose pane could not be recorded, and closes that pane', async () => {
    const spec = await run.makeSpec('t1', toNodeCommand('tmux-result.js'));
    let paneId = '';

    await expect(
      launchAttempt(spec, run.options, (handle) => {
        paneId = handle.paneId;
        throw new Error('the log cannot be written');
      }),
    ).rejects.toThrow('the log cannot be written');

    const panes = (await listTargetPanes(resolveTarget(toServerName(run.runId), run.options))) ?? [];
    expect(panes.find((p) => p.paneId === paneId && !p.dead)).toBeUndefined();
    // The wrapper writes its pid file first thing: the agent was never released.
    expect(existsSync(join(spec.attemptDir, 'pid.json'))).toBe(false);
  });
});

// The kill -9 torture with workers in tmux panes, on a private TMUX_TMPDIR.
import { afterEach, describe, it } from 'vitest';
import { removeRecoveryProjects } from '../helpers/recovery-project.js';
import { tortureAndCheck } from './torture-run.js';

describe('team resume (kill -9 torture, tmux workers)', () => {
  afterEach(removeRecoveryProjects);

  it('completes a run whose orchestrator is killed at 20+ points, with every task done once, no event lost and no pane or server left', { timeout: 240_000 }, async () => {
    await tortureAndCheck('tmux');
  });
});

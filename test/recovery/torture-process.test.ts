// The kill -9 torture with headless process workers.
import { afterEach, describe, it } from 'vitest';
import { removeRecoveryProjects } from '../helpers/recovery-project.js';
import { tortureAndCheck } from './torture-run.js';

describe('team resume (kill -9 torture, process workers)', () => {
  afterEach(removeRecoveryProjects);

  it('completes a run whose orchestrator is killed at 20+ points, with every task done once, no event lost and nothing left running', { timeout: 240_000 }, async () => {
    await tortureAndCheck('process');
  });
});

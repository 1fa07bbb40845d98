// Shared by the adapter tests: recorded CLI output and a fixed adapter input.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AdapterInput, AgentConfig } from '../../../workers/types.js';

// Where the recorded outputs and the stub executables live.
export const CLI_FIXTURES = fileURLToPath(new URL('../../fixtures/cli/', import.meta.url));
export const STUB_BIN = fileURLToPath(new URL('../../fixtures/bin/', import.meta.url));

// The text of test/fixtures/cli/<cli>/<name>.
export function readFixture(cli: string, name: string): string {
  return readFileSync(`${CLI_FIXTURES}${cli}/${name}`, 'utf8');
}

// One attempt's input with a fixed prompt and paths, for the given agent config.
export function makeInput(agent: AgentConfig): AdapterInput {
  return {
    prompt: 'Add input validation to the API',
    promptFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
    resultFile: '/p/.team/runs/r1/attempts/t1/a1/result.json',
    projectDir: '/p',
    agent,
    stage: 'team-exec',
    permission: 'run',
  };
}

// The fenced result every success fixture carries (an exec-stage result).
export const FIXTURE_RESULT = {
  status: 'completed',
  summary: 'Added zod validation to POST /users and its test.',
  artifacts: ['src/routes/users.ts', 'test/users.test.ts'],
  evidence: 'npm test: 14 passed',
  next: 'Verify the other routes use the same schema.',
};

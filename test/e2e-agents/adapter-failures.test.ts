// The built CLI with agent CLIs whose key is refused (STUB_MODE=error): the attempt fails with the
// CLI's own error text and what to do, the run stops there with no retry, and an exit code of 0
// alone never makes a success.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { eventsOf, makeAgentProject, removeAgentProjects, STUB_BIN } from '../helpers/agent-project.js';

const RUN_TIMEOUT_MS = 120_000;

// What each stub prints in error mode, as its adapter reads it.
const ERRORS: Array<{ cli: string; error: string; remedy: string }> = [
  { cli: 'claude', error: 'Invalid API key · Fix external API key', remedy: 'check ANTHROPIC_API_KEY' },
  { cli: 'codex', error: 'unexpected status 401 Unauthorized: Missing bearer or basic authentication in header', remedy: 'check OPENAI_API_KEY' },
  { cli: 'gemini', error: 'Error: [API Error: Request had invalid authentication credentials.]', remedy: 'check GEMINI_API_KEY' },
  { cli: 'opencode', error: 'ProviderAuthError: Invalid API key.', remedy: 'opencode auth login' },
  { cli: 'aider', error: 'litellm.AuthenticationError: AnthropicException', remedy: 'check the model\'s API key variable' },
];

const folders: string[] = [];

// A PATH folder whose `<cli>` runs the stub and then exits 0 whatever the stub did (as aider does).
function makeExitZeroBin(): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-exit0-'));
  folders.push(dir);
  for (const { cli } of ERRORS) {
    const path = join(dir, cli);
    writeFileSync(path, `#!/bin/sh\n"${join(STUB_BIN, cli)}" "$@"\nexit 0\n`);
    chmodSync(path, 0o755);
  }
  return dir;
}

afterEach(removeAgentProjects);
afterAll(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('agent adapters on failure', () => {
  describe.each(ERRORS)('$cli', ({ cli, error, remedy }) => {
    it('stops the run at the first refused key, naming the CLI, the cause and what to do, with no retry', async () => {
      const project = makeAgentProject({ PATH: `${STUB_BIN}:${process.env.PATH}`, STUB_MODE: 'error' });
      const result = await project.team(['1:executor', 'add input validation to the API', '--agent', cli]);
      expect(result.exitCode, result.stderr).toBe(1);
      const run = project.readRun();
      const finished = eventsOf(run, 'task_finished');
      expect(finished.map((e) => [e.task_id, e.attempt, e.status, e.retryable])).toEqual([['plan', 1, 'failed', false]]);
      expect(finished[0]!.evidence).toContain(`${cli}: the API key was refused (${error}`);
      expect(finished[0]!.evidence).toContain(remedy);
      expect(eventsOf(run, 'run_failed')[0]!.reason).toContain(`plan a1 failed and no retry can fix it: ${cli}: the API key was refused`);
      expect(result.stderr).toContain(remedy);
    }, RUN_TIMEOUT_MS);

    it('fails the attempt with the CLI\'s error text when the CLI exits 0 anyway', async () => {
      const project = makeAgentProject({ PATH: `${makeExitZeroBin()}:${process.env.PATH}`, STUB_MODE: 'error' });
      const result = await project.team(['1:executor', 'add input validation to the API', '--agent', cli]);
      expect(result.exitCode, result.stderr).toBe(1);
      const run = project.readRun();
      expect(eventsOf(run, 'run_completed')).toEqual([]);
      const finished = eventsOf(run, 'task_finished');
      expect(finished.map((e) => [e.task_id, e.attempt, e.status])).toEqual([['plan', 1, 'failed']]);
      expect(finished[0]!.evidence).toContain(`${cli}: the API key was refused (${error}`);
    }, RUN_TIMEOUT_MS);
  });
});

describe('a refused permission', () => {
  it('stops the run at opencode\'s auto-rejected write of the result file, naming the file, with no retry', async () => {
    const project = makeAgentProject({ PATH: `${STUB_BIN}:${process.env.PATH}`, STUB_MODE: 'refuse' });
    const result = await project.team(['1:executor', 'add input validation to the API', '--agent', 'opencode']);
    expect(result.exitCode, result.stderr).toBe(1);
    const run = project.readRun();
    const finished = eventsOf(run, 'task_finished');
    expect(finished.map((e) => [e.task_id, e.attempt, e.status, e.retryable])).toEqual([['plan', 1, 'failed', false]]);
    const resultFile = join(project.dir, '.team/runs', project.runId(), 'attempts/plan/a1/result.json');
    expect(finished[0]!.evidence).toBe(
      `opencode refused the write to ${resultFile}: permission requested: external_directory (${join(resultFile, '..')}/*); auto-rejecting; allow it in the \`permission\` of opencode.json (external_directory, edit, bash), or check OPENCODE_PERMISSION in agents.<name>.env`,
    );
    expect(eventsOf(run, 'run_failed')[0]!.reason).toContain(`plan a1 failed and no retry can fix it: opencode refused the write to ${resultFile}`);
  }, RUN_TIMEOUT_MS);
});

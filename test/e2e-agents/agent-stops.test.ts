// The built CLI with stub CLIs that misbehave as the real ones do: a key claude retries for
// minutes, codex reconnecting forever, a CLI busy past its attempt cap, gemini in an untrusted
// folder, tool calls denied; and the permission level each stage gets.
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf, makeAgentProject, removeAgentProjects, STUB_BIN } from '../helpers/agent-project.js';

const RUN_TIMEOUT_MS = 120_000;
const TASK = 'add input validation to the API';
const PATH = `${STUB_BIN}:${process.env.PATH}`;

afterEach(removeAgentProjects);

describe('agent CLIs that fail without ending', () => {
  it('stops claude at its first retried 401 and fails the run with no second attempt', async () => {
    const project = makeAgentProject({ PATH, STUB_MODE: 'auth-retry' });
    const result = await project.team(['1:executor', TASK, '--agent', 'claude']);
    expect(result.exitCode, result.stderr).toBe(1);
    const finished = eventsOf(project.readRun(), 'task_finished');
    expect(finished.map((e) => [e.task_id, e.attempt, e.status, e.retryable])).toEqual([['plan', 1, 'failed', false]]);
    expect(finished[0]!.evidence).toBe('claude: the API key was refused (API error 401 authentication_failed, retried by claude); check ANTHROPIC_API_KEY (or unset it and run `claude /login`)');
    expect(result.stderr).toContain('check ANTHROPIC_API_KEY');
  }, RUN_TIMEOUT_MS);

  it('marks codex stalled and kills it when it only prints reconnect notices', async () => {
    const project = makeAgentProject({ PATH, STUB_MODE: 'reconnect' });
    project.writeConfig({ team: { maxTaskAttempts: 1 }, watchdog: { statusCheckMs: 1000, reassignMs: 2500 } });
    const result = await project.team(['1:executor', TASK, '--agent', 'codex']);
    expect(result.exitCode, result.stderr).toBe(1);
    const run = project.readRun();
    expect(eventsOf(run, 'attempt_stalled').map((e) => [e.task_id, e.attempt])).toEqual([['plan', 1]]);
    const finished = eventsOf(run, 'task_finished');
    expect(finished.map((e) => [e.task_id, e.status])).toEqual([['plan', 'failed']]);
    expect(finished[0]!.evidence).toMatch(/^watchdog: no progress for \d+s \(reassign after 3s\); killed$/);
  }, RUN_TIMEOUT_MS);

  it('kills an attempt that runs past its stage\'s cap, however busy it looks', async () => {
    const project = makeAgentProject({ PATH, STUB_MODE: 'busy' });
    project.writeConfig({ team: { maxTaskAttempts: 1, attemptTimeoutMsPerStage: { 'team-plan': 1500 } } });
    const result = await project.team(['1:executor', TASK, '--agent', 'codex']);
    expect(result.exitCode, result.stderr).toBe(1);
    const run = project.readRun();
    expect(eventsOf(run, 'attempt_stalled')).toEqual([]);
    const finished = eventsOf(run, 'task_finished');
    expect(finished[0]!.evidence).toMatch(/^attempt cap: ran \d+s, over the 2s allowed for team-plan \(team\.attemptTimeoutMs\); killed$/);
  }, RUN_TIMEOUT_MS);
});

describe('agent CLIs with no machine result', () => {
  it('gives gemini\'s exit code and last lines as evidence when it will not start untrusted', async () => {
    const project = makeAgentProject({ PATH, GEMINI_CLI_TRUST_WORKSPACE: '' });
    // A gemini that drops the trust flag, as an older adapter did.
    const untrusting = project.write('bin/gemini-untrusted', `#!/bin/sh\nfor a; do shift; [ "$a" = --skip-trust ] || set -- "$@" "$a"; done\nexec "${join(STUB_BIN, 'gemini')}" "$@"\n`);
    chmodSync(untrusting, 0o755);
    project.writeConfig({ team: { maxTaskAttempts: 1 }, agents: { gem: { adapter: 'gemini', command: untrusting } } });
    const result = await project.team(['1:executor', TASK, '--agent', 'gem']);
    expect(result.exitCode, result.stderr).toBe(1);
    const finished = eventsOf(project.readRun(), 'task_finished');
    expect(finished[0]!.evidence).toBe(
      'exited 55; no machine result; its last output: Approval mode overridden to "default" because the current folder is not trusted. | ' +
        'Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode. For more details, see https://geminicli.com/docs/cli/trusted-folders/#headless-and-automated-environments',
    );
  }, RUN_TIMEOUT_MS);
});

describe('permissions per stage', () => {
  it('lets plan read, exec run commands and verify what the agent\'s config says, as claude sees it', async () => {
    const project = makeAgentProject({ PATH });
    project.writeConfig({ agents: { claude: { adapter: 'claude', permissions: { 'team-verify': 'read' } } } });
    const result = await project.team(['1:executor', TASK, '--agent', 'claude']);
    expect(result.exitCode, result.stderr).toBe(0);
    const modeOf = (task: string) => {
      const output = readFileSync(join(project.dir, '.team/runs', project.runId(), 'attempts', task, 'a1', 'output.log'), 'utf8');
      return (JSON.parse(output.split('\n')[0]!) as { permissionMode: string }).permissionMode;
    };
    expect(['plan', 'prd', 't1', 'verify-1'].map(modeOf)).toEqual(['dontAsk', 'dontAsk', 'acceptEdits', 'dontAsk']);
  }, RUN_TIMEOUT_MS);

  it('records the tool calls claude denied in the attempt\'s evidence and shows them in team status', async () => {
    const project = makeAgentProject({ PATH, STUB_MODE: 'deny' });
    const result = await project.team(['1:executor', TASK, '--agent', 'claude']);
    expect(result.exitCode, result.stderr).toBe(0);
    const t1 = eventsOf(project.readRun(), 'task_finished').find((e) => e.task_id === 't1')!;
    expect(t1.evidence).toBe('claude stub: canned output; permission denied: Bash: npm test');
    const status = await project.team(['status']);
    expect(status.stdout).toContain('permission denied: Bash: npm test');
  }, RUN_TIMEOUT_MS);
});

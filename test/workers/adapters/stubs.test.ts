import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { lastFencedJson } from '../../../workers/adapters/fenced-json.js';
import { CLI_ADAPTERS } from '../../../workers/adapters/index.js';
import { DEFAULT_PERMISSIONS } from '../../../workers/adapters/permissions.js';
import { STAGES, type AgentReport, type Stage } from '../../../workers/types.js';
import { STUB_BIN } from './fixtures.js';

// What each stub reports per call, so a pipeline run can check its cost sums.
const STUB_USAGE: Record<string, Pick<AgentReport, 'costUsd' | 'tokens'>> = {
  claude: { costUsd: 0.0123, tokens: { input: 1000, output: 200 } },
  codex: { tokens: { input: 2000, output: 300 } },
  gemini: { tokens: { input: 1500, output: 200 } },
  opencode: { costUsd: 0.0045, tokens: { input: 2500, output: 220 } },
  aider: { costUsd: 0.0067, tokens: { input: 3100, output: 412 } },
};

// Runs the stub for `cli` the way a backend would: the adapter's argv, stdin file, TEAM_* env.
async function runStub(cli: keyof typeof STUB_USAGE, stage: Stage, extraEnv: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), `stub-${cli}-`));
  const promptFile = join(dir, 'prompt.md');
  const resultFile = join(dir, 'result.json');
  writeFileSync(promptFile, `# ${stage}\nDo the work for task t1.\n`);
  const adapter = CLI_ADAPTERS[cli as keyof typeof CLI_ADAPTERS];
  const command = adapter.build({
    prompt: readFileSync(promptFile, 'utf8'),
    promptFile,
    resultFile,
    projectDir: dir,
    agent: { adapter: adapter.name, command: join(STUB_BIN, cli) },
    stage,
    permission: DEFAULT_PERMISSIONS[stage],
  });
  const result = await execa(command.file, command.args, {
    cwd: dir,
    env: {
      ...command.env,
      TEAM_RUN_ID: 'run-1',
      TEAM_TASK_ID: 't1',
      TEAM_ATTEMPT: '1',
      TEAM_STAGE: stage,
      TEAM_ROLE: 'executor',
      TEAM_WORKER: 'worker-1',
      TEAM_PROMPT_FILE: promptFile,
      TEAM_RESULT_FILE: resultFile,
      TEAM_PROJECT_DIR: dir,
      ...extraEnv,
    },
    ...(command.stdinFile === undefined ? { stdin: 'ignore' as const } : { inputFile: command.stdinFile }),
    all: true,
    reject: false,
  });
  return { exitCode: result.exitCode, report: adapter.parse(result.all ?? ''), resultFile };
}

// A valid result for the stage (spec section 4).
// The stubs quote the prompt's first line in the summary, which shows the prompt arrived.
function expectValidResult(stage: Stage, result: unknown): void {
  expect(result).toMatchObject({ status: 'completed', artifacts: [], summary: expect.stringContaining(`began "# ${stage}"`) });
  if (stage === 'team-plan') expect(result).toMatchObject({ tasks: [{ id: 't1', title: expect.any(String) }] });
  if (stage === 'team-prd') expect(result).toMatchObject({ acceptance: { t1: [expect.any(String)] } });
  if (stage === 'team-verify') expect(result).toMatchObject({ verdict: 'pass', defects: [] });
  if (stage === 'ralph-review') expect(result).toMatchObject({ verdict: 'approve', reasons: [] });
}

describe('stub CLIs', () => {
  for (const cli of Object.keys(STUB_USAGE)) {
    it(`${cli} stub answers every stage with a valid fenced result its adapter reads as ok`, async () => {
      for (const stage of STAGES) {
        const { exitCode, report } = await runStub(cli, stage);
        expect(exitCode).toBe(0);
        expect(report).toMatchObject({ ok: true, ...STUB_USAGE[cli] });
        expect(report.error).toBeUndefined();
        expectValidResult(stage, lastFencedJson(report.finalText ?? ''));
      }
    });

    it(`${cli} stub prints its error format and exits non-zero under STUB_MODE=error`, async () => {
      const { exitCode, report } = await runStub(cli, 'team-exec', { STUB_MODE: 'error' });
      expect(exitCode).not.toBe(0);
      expect(report.ok).toBe(false);
      expect(report.error).toEqual(expect.any(String));
    });
  }

  it('gives the same session id for the same attempt and a distinct one per CLI', async () => {
    const first = await runStub('claude', 'team-exec');
    const again = await runStub('claude', 'team-exec');
    const other = await runStub('codex', 'team-exec');
    expect(first.report.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(again.report.sessionId).toBe(first.report.sessionId);
    expect(other.report.sessionId).not.toBe(first.report.sessionId);
  });

  it('refuses an unknown flag with the words and exit code of the real CLI', async () => {
    const refusals: Array<[string, string[], number, string]> = [
      ['claude', ['-p', '--x'], 1, "error: unknown option '--x'"],
      ['codex', ['exec', '--bogus', '-'], 2, "error: unexpected argument '--bogus' found"],
      ['gemini', ['-p', 'hi', '--bogus'], 1, 'Unknown argument: bogus'],
      ['opencode', ['run', '--bogus'], 1, 'opencode run [message..]'],
      ['aider', ['--bogus'], 2, 'usage: aider [-h] [--model MODEL] ...'],
    ];
    for (const [cli, args, exitCode, words] of refusals) {
      const result = await execa(join(STUB_BIN, cli), args, { input: 'hi', reject: false, env: { GEMINI_CLI_TRUST_WORKSPACE: 'true' } });
      expect([cli, result.exitCode, result.stderr.split('\n')[0]]).toEqual([cli, exitCode, words]);
    }
  });

  it('gemini stub will not start in an untrusted folder without --skip-trust, as gemini 0.61 does', async () => {
    const result = await execa(join(STUB_BIN, 'gemini'), ['-p', 'hi', '--output-format', 'json'], { input: 'x', reject: false, env: { GEMINI_CLI_TRUST_WORKSPACE: '' } });
    expect(result.exitCode).toBe(55);
    expect(result.stderr).toContain('Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`');
  });

  it('claude stub asks for --verbose with stream-json, as claude does', async () => {
    const result = await execa(join(STUB_BIN, 'claude'), ['-p', '--output-format', 'stream-json'], { input: 'hi', reject: false });
    expect([result.exitCode, result.stderr]).toEqual([1, 'Error: When using --print, --output-format=stream-json requires --verbose']);
  });

  it('also writes the result file when STUB_WRITE_RESULT=1', async () => {
    const { report, resultFile } = await runStub('opencode', 'team-verify', { STUB_WRITE_RESULT: '1' });
    expect(JSON.parse(readFileSync(resultFile, 'utf8'))).toEqual(lastFencedJson(report.finalText ?? ''));
  });
});

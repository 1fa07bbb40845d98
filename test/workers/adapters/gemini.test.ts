import { describe, expect, it } from 'vitest';
import { lastFencedJson } from '../../../workers/adapters/fenced-json.js';
import { gemini } from '../../../workers/adapters/gemini.js';
import { FIXTURE_RESULT, makeInput, readFixture } from './fixtures.js';

describe('gemini', () => {
  it('builds headless json mode that trusts the project and includes the attempt folder, with yolo approvals at the run level and the prompt on stdin', () => {
    expect(gemini.build(makeInput({ adapter: 'gemini' }))).toEqual({
      file: 'gemini',
      args: ['-p', 'Follow the instructions above.', '--output-format', 'json', '--skip-trust', '--include-directories', '/p/.team/runs/r1/attempts/t1/a1', '--approval-mode', 'yolo'],
      stdinFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
      // Started once: its launcher does not start node a second time for a larger heap.
      env: { GEMINI_CLI_NO_RELAUNCH: 'true' },
    });
  });

  it("starts gemini once unless the agent's env says otherwise", () => {
    expect(gemini.build(makeInput({ adapter: 'gemini', env: { GEMINI_CLI_NO_RELAUNCH: '' } })).env).toEqual({ GEMINI_CLI_NO_RELAUNCH: '' });
  });

  it('maps model, approval mode, command, args and env to the command line', () => {
    const input = makeInput({
      adapter: 'gemini',
      command: 'npx',
      model: 'gemini-2.5-pro',
      permissionMode: 'default',
      args: ['--sandbox'],
      env: { GEMINI_API_KEY_FILE: '/k' },
    });
    expect(gemini.build(input)).toEqual({
      file: 'npx',
      args: [
        '-p', 'Follow the instructions above.',
        '--output-format', 'json',
        '--skip-trust',
        '--model', 'gemini-2.5-pro',
        '--include-directories', '/p/.team/runs/r1/attempts/t1/a1',
        '--approval-mode', 'default',
        '--sandbox',
      ],
      stdinFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
      env: { GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_API_KEY_FILE: '/k' },
    });
  });

  it('reads a response: final text, session id and tokens summed over models', () => {
    const report = gemini.parse(readFixture('gemini', 'success.txt'));
    expect(report).toMatchObject({
      ok: true,
      sessionId: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
      // Its cached tokens are part of the prompt's.
      tokens: { input: 24401 + 803, output: 215 + 103 + 16 + 38, cached: 10656 },
    });
    expect(report.costUsd).toBeUndefined();
    expect(lastFencedJson(report.finalText ?? '')).toEqual(FIXTURE_RESULT);
  });

  it('reports an API error with its type and message', () => {
    const report = gemini.parse(readFixture('gemini', 'error.txt'));
    expect(report.ok).toBe(false);
    expect(report.sessionId).toBe('d2e3f4a5-b6c7-4d8e-9f0a-1b2c3d4e5f60');
    expect(report.error).toMatch(/^Error: \[API Error: .*API key not valid/);
  });

  it('reports the session turn limit', () => {
    expect(gemini.parse(readFixture('gemini', 'max-turns.txt'))).toEqual({
      ok: false,
      error:
        'FatalTurnLimitedError: Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.',
    });
  });

  it('tolerates noise after the JSON object', () => {
    const noisy = `${readFixture('gemini', 'success.txt')}Flushing telemetry...\n`;
    expect(gemini.parse(noisy)).toMatchObject({ ok: true });
  });

  it('fails when no JSON object was printed, saying it has none to show', () => {
    expect(gemini.parse('Loaded cached credentials.\nSegmentation fault\n')).toEqual({
      ok: false,
      error: 'gemini printed no JSON result',
      noRecord: true,
    });
  });

  it('maps the read level to plan mode and the edit level to auto_edit', () => {
    const levels = (['read', 'edit'] as const).map((permission) => gemini.build({ ...makeInput({ adapter: 'gemini' }), permission }).args.at(-1));
    expect(levels).toEqual(['plan', 'auto_edit']);
  });

  it('classifies a missing auth method and a refused key as not retryable', () => {
    const error = (message: string) => JSON.stringify({ session_id: 's', error: { type: 'Error', message, code: 41 } }, null, 2);
    expect(gemini.parse(error('Please set an Auth method in your /h/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY')).failure).toMatchObject({ kind: 'not-logged-in', retryable: false });
    expect(gemini.parse(error('[API Error: API key not valid. Please pass a valid API key.]')).failure?.reason).toBe(
      'gemini: the API key was refused (Error: [API Error: API key not valid. Please pass a valid API key.]); check GEMINI_API_KEY (or GOOGLE_API_KEY)',
    );
    expect(gemini.parse(readFixture('gemini', 'max-turns.txt')).failure).toBeUndefined();
  });

  it('counts its own retry notices and their stack frames as noise, not progress', () => {
    expect(gemini.scan?.(['Attempt 1 failed. Retrying with backoff... Error: fetch failed', '    at async Models.generateContent (chunk.js:1:1)', ''])).toEqual({ progress: false });
    expect(gemini.scan?.(['YOLO mode is enabled. All tool calls will be automatically approved.'])).toEqual({ progress: true });
  });
});

import { describe, expect, it } from 'vitest';
import { lastFencedJson } from '../../../workers/adapters/fenced-json.js';
import { gemini } from '../../../workers/adapters/gemini.js';
import { FIXTURE_RESULT, makeInput, readFixture } from './fixtures.js';

describe('gemini', () => {
  it('builds headless json mode with auto_edit approvals and the prompt on stdin', () => {
    expect(gemini.build(makeInput({ adapter: 'gemini' }))).toEqual({
      file: 'gemini',
      args: ['-p', 'Follow the instructions above.', '--output-format', 'json', '--approval-mode', 'auto_edit'],
      stdinFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
    });
  });

  it('maps model, approval mode, command, args and env to the command line', () => {
    const input = makeInput({
      adapter: 'gemini',
      command: 'npx',
      model: 'gemini-2.5-pro',
      permissionMode: 'yolo',
      args: ['--sandbox'],
      env: { GEMINI_API_KEY_FILE: '/k' },
    });
    expect(gemini.build(input)).toEqual({
      file: 'npx',
      args: [
        '-p', 'Follow the instructions above.',
        '--output-format', 'json',
        '--model', 'gemini-2.5-pro',
        '--approval-mode', 'yolo',
        '--sandbox',
      ],
      stdinFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
      env: { GEMINI_API_KEY_FILE: '/k' },
    });
  });

  it('reads a response: final text, session id and tokens summed over models', () => {
    const report = gemini.parse(readFixture('gemini', 'success.txt'));
    expect(report).toMatchObject({
      ok: true,
      sessionId: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
      tokens: { input: 24401 + 803, output: 215 + 103 + 16 + 38 },
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

  it('fails when no JSON object was printed', () => {
    expect(gemini.parse('Loaded cached credentials.\nSegmentation fault\n')).toEqual({
      ok: false,
      error: 'gemini printed no JSON result',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { aider } from '../../../workers/adapters/aider.js';
import { lastFencedJson } from '../../../workers/adapters/fenced-json.js';
import { FIXTURE_RESULT, makeInput, readFixture } from './fixtures.js';

describe('aider', () => {
  it('builds a one-shot call from the prompt file with yes-always and no auto commits', () => {
    expect(aider.build(makeInput({ adapter: 'aider' }))).toEqual({
      file: 'aider',
      args: [
        '--message-file', '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
        '--yes-always', '--no-auto-commits', '--no-pretty', '--no-check-update',
      ],
    });
  });

  it('maps model, command, args and env; other caps have no aider flag', () => {
    const input = makeInput({
      adapter: 'aider',
      command: 'aider-chat',
      model: 'sonnet',
      maxTurns: 3,
      permissionMode: 'acceptEdits',
      args: ['--edit-format', 'diff'],
      env: { AIDER_DARK_MODE: 'true' },
    });
    expect(aider.build(input)).toEqual({
      file: 'aider-chat',
      args: [
        '--message-file', '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
        '--yes-always', '--no-auto-commits', '--no-pretty', '--no-check-update',
        '--model', 'sonnet',
        '--edit-format', 'diff',
      ],
      env: { AIDER_DARK_MODE: 'true' },
    });
  });

  it('reads the whole output as final text, tokens summed per reply and the last session cost', () => {
    const output = readFixture('aider', 'success.txt');
    const report = aider.parse(output);
    expect(report).toEqual({ ok: true, finalText: output, costUsd: 0.03, tokens: { input: 4200 + 5600, output: 380 + 512 } });
    expect(lastFencedJson(report.finalText ?? '')).toEqual(FIXTURE_RESULT);
  });

  it('reports a model error aider gave up on', () => {
    const report = aider.parse(readFixture('aider', 'error.txt'));
    expect(report.ok).toBe(false);
    expect(report.error).toMatch(/^litellm\.AuthenticationError: AnthropicException/);
    expect(report.tokens).toBeUndefined();
  });

  it('counts a model error that was retried and answered as a success', () => {
    expect(aider.parse(readFixture('aider', 'retried.txt'))).toMatchObject({ ok: true, costUsd: 0.01, tokens: { input: 2400, output: 274 } });
  });

  it('reports ok with no usage for output without a usage line', () => {
    expect(aider.parse('Aider v0.86.1\nNothing to do.\n')).toEqual({ ok: true, finalText: 'Aider v0.86.1\nNothing to do.\n' });
  });
});

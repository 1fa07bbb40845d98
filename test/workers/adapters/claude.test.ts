import { describe, expect, it } from 'vitest';
import { claude } from '../../../workers/adapters/claude.js';
import { lastFencedJson } from '../../../workers/adapters/fenced-json.js';
import { FIXTURE_RESULT, makeInput, readFixture } from './fixtures.js';

describe('claude', () => {
  it('builds print mode with json output, the default permission mode and the prompt on stdin', () => {
    expect(claude.build(makeInput({ adapter: 'claude' }))).toEqual({
      file: 'claude',
      args: ['-p', '--output-format', 'json', '--permission-mode', 'acceptEdits'],
      stdinFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
    });
  });

  it('maps model, permission mode, turn and budget caps, command, args and env to the command line', () => {
    const input = makeInput({
      adapter: 'claude',
      command: '/opt/bin/claude',
      model: 'sonnet',
      permissionMode: 'bypassPermissions',
      maxTurns: 30,
      maxBudgetUsd: 2.5,
      args: ['--verbose'],
      env: { ANTHROPIC_MODEL: 'x' },
    });
    expect(claude.build(input)).toEqual({
      file: '/opt/bin/claude',
      args: [
        '-p', '--output-format', 'json',
        '--model', 'sonnet',
        '--permission-mode', 'bypassPermissions',
        '--max-turns', '30',
        '--max-budget-usd', '2.5',
        '--verbose',
      ],
      stdinFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
      env: { ANTHROPIC_MODEL: 'x' },
    });
  });

  it('reads a success result: final text, session, cost and tokens', () => {
    const report = claude.parse(readFixture('claude', 'success.txt'));
    expect(report).toMatchObject({
      ok: true,
      sessionId: '5f0c9a4e-2b1d-4e57-9a53-0d6f1f3c8e21',
      costUsd: 0.2179,
      tokens: { input: 31 + 18412 + 211350, output: 2954 },
    });
    expect(report.error).toBeUndefined();
    expect(lastFencedJson(report.finalText ?? '')).toEqual(FIXTURE_RESULT);
  });

  it('reports max turns as a failure with the subtype and the CLI words', () => {
    const report = claude.parse(readFixture('claude', 'max-turns.txt'));
    expect(report).toMatchObject({ ok: false, costUsd: 0.0871, sessionId: '8e2d4b61-7c3a-4f19-b0d2-5a9e6c1f7d08' });
    expect(report.error).toBe('error_max_turns: Reached maximum number of turns (3)');
  });

  it('reports a spent budget as a failure with its cost', () => {
    const report = claude.parse(readFixture('claude', 'budget.txt'));
    expect(report).toMatchObject({ ok: false, costUsd: 0.1273986 });
    expect(report.error).toBe('error_max_budget_usd: Reached maximum budget ($0.1)');
  });

  it('reports a success subtype with is_error true as a failure with its text', () => {
    const report = claude.parse(readFixture('claude', 'error.txt'));
    expect(report).toMatchObject({ ok: false, error: 'Not logged in · Please run /login', costUsd: 0 });
  });

  it('reads the last record of stream-json output and peeks its session id from the init line', () => {
    const stream = readFixture('claude', 'stream.txt');
    expect(claude.parse(stream)).toMatchObject({ ok: true, costUsd: 0.2179 });
    const firstLine = stream.split('\n')[0] ?? '';
    expect(claude.peekSessionId?.(firstLine)).toBe('5f0c9a4e-2b1d-4e57-9a53-0d6f1f3c8e21');
  });

  it('tolerates noise lines before and after the result record', () => {
    const noisy = `npm warn config\n${readFixture('claude', 'success.txt')}\n[debug] exiting\n`;
    expect(claude.parse(noisy)).toMatchObject({ ok: true, costUsd: 0.2179 });
  });

  it('fails when there is no result record at all', () => {
    expect(claude.parse('Error: Input must be provided either through stdin or as a prompt argument\n')).toEqual({
      ok: false,
      error: 'claude printed no result record',
    });
  });
});

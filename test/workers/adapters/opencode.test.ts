import { describe, expect, it } from 'vitest';
import { lastFencedJson } from '../../../workers/adapters/fenced-json.js';
import { opencode } from '../../../workers/adapters/opencode.js';
import { FIXTURE_RESULT, makeInput, readFixture } from './fixtures.js';

describe('opencode', () => {
  it('builds run with json events, the run level\'s permissions with the attempt folder allowed, a session database of its own and the prompt piped on stdin', () => {
    expect(opencode.build(makeInput({ adapter: 'opencode' }))).toEqual({
      file: 'opencode',
      args: ['run', '--format', 'json'],
      stdinFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
      env: {
        OPENCODE_DB: '/p/.team/runs/r1/attempts/t1/a1/opencode.db',
        OPENCODE_PERMISSION: '{"edit":"allow","bash":"allow","external_directory":{"/p/.team/runs/r1/attempts/t1/a1/*":"allow"}}',
      },
    });
  });

  it('denies edits and shell commands at the read level, the attempt folder still readable', () => {
    expect(opencode.build({ ...makeInput({ adapter: 'opencode' }), permission: 'read' }).env).toEqual({
      OPENCODE_DB: '/p/.team/runs/r1/attempts/t1/a1/opencode.db',
      OPENCODE_PERMISSION: '{"edit":"deny","bash":"deny","external_directory":{"/p/.team/runs/r1/attempts/t1/a1/*":"allow"}}',
    });
  });

  it('classifies a fallback to the hosted service as a missing provider, keeping the address it tried', () => {
    const error = { type: 'error', timestamp: 1, sessionID: 'ses_1', error: { name: 'APIError', data: { message: 'Cannot connect to API: Unable to connect. Is the computer able to access the url?', isRetryable: true, metadata: { url: 'https://opencode.ai/zen/v1/chat/completions' } } } };
    const report = opencode.parse(JSON.stringify(error));
    expect(report.error).toBe('APIError: Cannot connect to API: Unable to connect. Is the computer able to access the url? (https://opencode.ai/zen/v1/chat/completions)');
    expect(report.failure).toMatchObject({ kind: 'missing-provider', retryable: false });
    expect(opencode.scan?.([JSON.stringify(error)]).failure).toMatchObject({ kind: 'missing-provider' });
  });

  it('maps model, auto permissions, command, args and env to the command line', () => {
    const input = makeInput({
      adapter: 'opencode',
      command: '/usr/local/bin/opencode',
      model: 'anthropic/claude-sonnet-4-5',
      permissionMode: 'auto',
      args: ['--agent', 'build'],
      env: { OPENCODE_CONFIG: '/c.json' },
    });
    expect(opencode.build(input)).toEqual({
      file: '/usr/local/bin/opencode',
      args: ['run', '--format', 'json', '--model', 'anthropic/claude-sonnet-4-5', '--auto', '--agent', 'build'],
      stdinFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
      env: { OPENCODE_DB: '/p/.team/runs/r1/attempts/t1/a1/opencode.db', OPENCODE_CONFIG: '/c.json' },
    });
  });

  it('reads a finished run: text parts joined, session id, cost and tokens summed over steps', () => {
    const report = opencode.parse(readFixture('opencode', 'success.txt'));
    expect(report).toMatchObject({
      ok: true,
      sessionId: 'ses_fd1c15233ffeiwqf92JsdPfahU',
      tokens: { input: 7952 + 397 + 7700, output: 35 + 24 + 16, cached: 7700 },
    });
    expect(report.costUsd).toBeCloseTo(0.0154, 10);
    expect(report.finalText?.startsWith('The route now validates its body.\n')).toBe(true);
    expect(lastFencedJson(report.finalText ?? '')).toEqual(FIXTURE_RESULT);
  });

  it('reports an error event with its name and message', () => {
    expect(opencode.parse(readFixture('opencode', 'error.txt'))).toEqual({
      ok: false,
      sessionId: 'ses_fd1c15233ffeiwqf92JsdPfahU',
      error: 'APIError: Incorrect API key provided',
      failure: expect.objectContaining({ kind: 'bad-key', retryable: false }),
    });
  });

  it('fails a run that stopped after a tool-calls step', () => {
    const lines = readFixture('opencode', 'success.txt').trim().split('\n').slice(0, 3).join('\n');
    expect(opencode.parse(lines)).toMatchObject({ ok: false, error: 'opencode printed no final step' });
  });

  it('accepts the done event of newer versions as the end of the run', () => {
    const lines = readFixture('opencode', 'success.txt').trim().split('\n').slice(0, 3);
    lines.push('{"type":"done","timestamp":1,"sessionID":"ses_fd1c15233ffeiwqf92JsdPfahU","reason":"idle","rejected":[]}');
    expect(opencode.parse(lines.join('\n'))).toMatchObject({ ok: true });
  });

  it('tolerates noise lines between events', () => {
    const noisy = readFixture('opencode', 'success.txt').replace('\n', '\n! permission requested: bash; auto-rejecting\n');
    expect(opencode.parse(noisy)).toMatchObject({ ok: true });
  });

  it('peeks the session id from the first event', () => {
    const firstLine = readFixture('opencode', 'success.txt').split('\n')[0] ?? '';
    expect(opencode.peekSessionId?.(firstLine)).toBe('ses_fd1c15233ffeiwqf92JsdPfahU');
  });
});

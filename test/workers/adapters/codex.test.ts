import { describe, expect, it } from 'vitest';
import { codex } from '../../../workers/adapters/codex.js';
import { lastFencedJson } from '../../../workers/adapters/fenced-json.js';
import { FIXTURE_RESULT, makeInput, readFixture } from './fixtures.js';

describe('codex', () => {
  it('builds exec with json events, a workspace-write sandbox that may also write the attempt folder, and the prompt read from stdin', () => {
    expect(codex.build(makeInput({ adapter: 'codex' }))).toEqual({
      file: 'codex',
      args: ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'workspace-write', '--add-dir', '/p/.team/runs/r1/attempts/t1/a1', '-'],
      stdinFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
    });
  });

  it('maps model, sandbox, command, args and env; turn and budget caps have no codex flag', () => {
    const input = makeInput({
      adapter: 'codex',
      command: 'codex-beta',
      model: 'gpt-5-codex',
      permissionMode: 'danger-full-access',
      maxTurns: 5,
      maxBudgetUsd: 1,
      args: ['-c', 'model_reasoning_effort=high'],
      env: { CODEX_HOME: '/tmp/codex' },
    });
    expect(codex.build(input)).toEqual({
      file: 'codex-beta',
      args: [
        'exec', '--json', '--skip-git-repo-check',
        '--model', 'gpt-5-codex',
        '--sandbox', 'danger-full-access',
        '-',
        '-c', 'model_reasoning_effort=high',
      ],
      stdinFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
      env: { CODEX_HOME: '/tmp/codex' },
    });
  });

  it('adds no writable folder to a read-only sandbox, where codex ignores it', () => {
    const { args } = codex.build({ ...makeInput({ adapter: 'codex' }), stage: 'team-plan', permission: 'read' });
    expect(args).toEqual(['exec', '--json', '--skip-git-repo-check', '--sandbox', 'read-only', '-']);
  });

  it('turns permission mode yolo into the no-sandbox flag', () => {
    const { args } = codex.build(makeInput({ adapter: 'codex', permissionMode: 'yolo' }));
    expect(args).toEqual(['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '-']);
  });

  it('reads a completed turn: last agent message, thread id and tokens, no cost', () => {
    const report = codex.parse(readFixture('codex', 'success.txt'));
    expect(report).toMatchObject({
      ok: true,
      sessionId: '0199a213-81c0-7800-8aa1-bbab2a035a53',
      // cached_input_tokens are part of input_tokens.
      tokens: { input: 24763, output: 122, cached: 24448 },
    });
    expect(report.costUsd).toBeUndefined();
    expect(lastFencedJson(report.finalText ?? '')).toEqual(FIXTURE_RESULT);
  });

  it('reports a failed turn with its error message', () => {
    expect(codex.parse(readFixture('codex', 'error.txt'))).toEqual({
      ok: false,
      sessionId: '0199a5c1-3f7e-7d21-9b04-6e2f8c1a4d57',
      error: 'unexpected status 401 Unauthorized: Incorrect API key provided',
      failure: {
        kind: 'bad-key',
        retryable: false,
        reason: 'codex: the API key was refused (unexpected status 401 Unauthorized: Incorrect API key provided); check OPENAI_API_KEY, or run `codex login` again',
      },
    });
  });

  it('counts a turn that completed after a reconnect error as a success', () => {
    expect(codex.parse(readFixture('codex', 'recovered.txt'))).toMatchObject({ ok: true, tokens: { input: 9120, output: 388 } });
  });

  it('reports a stream that ends on an error event without a turn', () => {
    const output = '{"type":"thread.started","thread_id":"t-1"}\n{"type":"error","message":"stream disconnected"}\n';
    expect(codex.parse(output)).toEqual({ ok: false, sessionId: 't-1', error: 'stream disconnected' });
  });

  it('fails when the output holds no events', () => {
    expect(codex.parse('Reading prompt from stdin...\nNo prompt provided via stdin.\n')).toEqual({
      ok: false,
      error: 'codex printed no turn.completed event',
      noRecord: true,
    });
  });

  it('reads the read level as a read-only sandbox', () => {
    expect(codex.build({ ...makeInput({ adapter: 'codex' }), permission: 'read' }).args).toContain('read-only');
  });

  it('counts reconnect notices as noise and thread events as progress', () => {
    const reconnect = JSON.stringify({ type: 'error', message: 'Reconnecting... 2/5 (stream disconnected before completion: waiting for network)' });
    expect(codex.scan?.([reconnect, 'Reconnecting... waiting for network', reconnect])).toEqual({ progress: false });
    expect(codex.scan?.([reconnect, JSON.stringify({ type: 'item.completed', item: { type: 'command_execution' } })])).toEqual({ progress: true });
    const refused = JSON.stringify({ type: 'error', message: 'unexpected status 401 Unauthorized: Incorrect API key provided' });
    expect(codex.scan?.([refused]).failure).toMatchObject({ kind: 'bad-key' });
  });

  it("tells a reconnect after a rate limit as codex's own retry: which of how many, in words", () => {
    const limited = (n: number) => JSON.stringify({ type: 'error', message: `Reconnecting... ${n}/5 (exceeded retry limit, last status: 429 Too Many Requests)` });
    expect(codex.scan?.([limited(2), limited(3)])).toEqual({ progress: false, retry: { reason: 'exceeded retry limit, last status: 429 Too Many Requests', n: 3, max: 5 } });
    // A lost network is no rate limit: nothing to slow down for.
    const network = JSON.stringify({ type: 'error', message: 'Reconnecting... 2/5 (stream disconnected before completion: waiting for network)' });
    expect(codex.scan?.([network]).retry).toBeUndefined();
  });

  it('peeks the thread id from the first event', () => {
    const firstLines = readFixture('codex', 'success.txt').split('\n').slice(0, 2).join('\n');
    expect(codex.peekSessionId?.(firstLines)).toBe('0199a213-81c0-7800-8aa1-bbab2a035a53');
  });
});

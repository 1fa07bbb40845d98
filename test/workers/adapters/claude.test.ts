import { describe, expect, it } from 'vitest';
import { claude } from '../../../workers/adapters/claude.js';
import { lastFencedJson } from '../../../workers/adapters/fenced-json.js';
import { FIXTURE_RESULT, makeInput, readFixture } from './fixtures.js';

describe('claude', () => {
  it('builds print mode with streamed json output, the attempt folder granted, Bash allowed at the run level and the prompt on stdin', () => {
    expect(claude.build(makeInput({ adapter: 'claude' }))).toEqual({
      file: 'claude',
      args: ['-p', '--output-format', 'stream-json', '--verbose', '--add-dir', '/p/.team/runs/r1/attempts/t1/a1', '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash'],
      stdinFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
    });
  });

  it('maps the read level to dontAsk and the edit level to acceptEdits without Bash', () => {
    const read = claude.build({ ...makeInput({ adapter: 'claude' }), stage: 'team-plan', permission: 'read' });
    expect(read.args.slice(6)).toEqual(['--permission-mode', 'dontAsk']);
    const edit = claude.build({ ...makeInput({ adapter: 'claude' }), permission: 'edit' });
    expect(edit.args.slice(6)).toEqual(['--permission-mode', 'acceptEdits']);
  });

  it('maps model, permission mode, turn and budget caps, command, args and env to the command line', () => {
    const input = makeInput({
      adapter: 'claude',
      command: '/opt/bin/claude',
      model: 'sonnet',
      permissionMode: 'bypassPermissions',
      maxTurns: 30,
      maxBudgetUsd: 2.5,
      args: ['--debug'],
      env: { ANTHROPIC_MODEL: 'x' },
    });
    expect(claude.build(input)).toEqual({
      file: '/opt/bin/claude',
      args: [
        '-p', '--output-format', 'stream-json', '--verbose',
        '--model', 'sonnet',
        '--max-turns', '30',
        '--max-budget-usd', '2.5',
        '--add-dir', '/p/.team/runs/r1/attempts/t1/a1',
        '--permission-mode', 'bypassPermissions',
        '--debug',
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
      // The cache-read tokens are input too, and the cached part of it.
      tokens: { input: 31 + 18412 + 211350, output: 2954, cached: 211350 },
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

  it('fails when there is no result record at all, saying it has none to show', () => {
    expect(claude.parse('Error: Input must be provided either through stdin or as a prompt argument\n')).toEqual({
      ok: false,
      error: 'claude printed no result record',
      noRecord: true,
    });
  });

  it('lists the permission denials of the result record', () => {
    const result = { type: 'result', subtype: 'success', is_error: false, result: 'done', session_id: 's', permission_denials: [
      { tool_name: 'Bash', tool_use_id: 't1', tool_input: { command: 'npm test' } },
      { tool_name: 'Write', tool_use_id: 't2', tool_input: { file_path: '/p/a.txt', content: 'x' } },
    ] };
    expect(claude.parse(JSON.stringify(result)).denials).toEqual(['Bash: npm test', 'Write: /p/a.txt']);
  });

  it('classifies a refused key, a missing login, an unknown model and a spent balance as not retryable', () => {
    const result = (fields: Record<string, unknown>) => JSON.stringify({ type: 'result', subtype: 'success', is_error: true, session_id: 's', ...fields });
    const cases: Array<[string, string]> = [
      [result({ api_error_status: 401, result: 'Invalid API key · Fix external API key' }), 'bad-key'],
      [result({ result: 'Not logged in · Please run /login' }), 'not-logged-in'],
      [result({ api_error_status: 404, result: "There's an issue with the selected model (claude-x). It may not exist or you may not have access to it." }), 'unknown-model'],
      [result({ api_error_status: 402, result: 'API Error: 402 credit balance is too low' }), 'quota'],
    ];
    for (const [output, kind] of cases) expect(claude.parse(output).failure, output).toMatchObject({ kind, retryable: false });
    expect(claude.parse(result({ result: 'Invalid API key · Fix external API key' })).failure?.reason).toBe(
      'claude: the API key was refused (Invalid API key · Fix external API key); check ANTHROPIC_API_KEY (or unset it and run `claude /login`)',
    );
    expect(claude.parse(result({ subtype: 'error_max_turns', errors: ['Reached maximum number of turns (3)'] })).failure).toBeUndefined();
  });

  it('tells an auth retry notice from progress while the stream runs', () => {
    const retry = (status: number | null, error: string) => JSON.stringify({ type: 'system', subtype: 'api_retry', attempt: 1, max_retries: 10, retry_delay_ms: 600, error_status: status, error, session_id: 's' });
    expect(claude.scan?.([retry(null, 'unknown'), retry(503, 'server_error')])).toEqual({ progress: false });
    expect(claude.scan?.([retry(401, 'authentication_failed')])).toMatchObject({ progress: false, failure: { kind: 'bad-key', retryable: false } });
    const toolUse = JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'ls' } }] } });
    expect(claude.scan?.([retry(null, 'unknown'), toolUse, 'not json'])).toEqual({ progress: true });
  });

  it("tells a rate limit's and an overload's retry notices as claude's own retries: which of how many, and the wait", () => {
    const notice = (attempt: number, status: number, error: string) => JSON.stringify({ type: 'system', subtype: 'api_retry', attempt, max_retries: 10, retry_delay_ms: 4210.7, error_status: status, error, session_id: 's' });
    expect(claude.scan?.([notice(2, 429, 'rate_limit'), notice(3, 429, 'rate_limit')])).toEqual({ progress: false, retry: { reason: 'API error 429 (rate_limit)', n: 3, max: 10, delayMs: 4211 } });
    expect(claude.scan?.([notice(1, 529, 'overloaded')]).retry).toMatchObject({ reason: 'API error 529 (overloaded)', n: 1 });
    // A server error is retried too, but it is no rate limit.
    expect(claude.scan?.([notice(1, 500, 'server_error')]).retry).toBeUndefined();
  });
});

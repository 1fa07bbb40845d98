import { describe, expect, it } from 'vitest';
import { command } from '../../../workers/adapters/command.js';
import { makeInput } from './fixtures.js';

describe('command', () => {
  it('runs the configured argv as is when the prompt travels as a file', () => {
    expect(command.build(makeInput({ adapter: 'command', command: './agent.sh', args: ['--fast'] }))).toEqual({
      file: './agent.sh',
      args: ['--fast'],
    });
  });

  it('appends the prompt text as the last argument for promptVia arg', () => {
    const input = makeInput({ adapter: 'command', command: 'llm', args: ['-m', 'x'], promptVia: 'arg', env: { A: '1' } });
    expect(command.build(input)).toEqual({ file: 'llm', args: ['-m', 'x', 'Add input validation to the API'], env: { A: '1' } });
  });

  it('feeds the prompt file on stdin for promptVia stdin', () => {
    expect(command.build(makeInput({ adapter: 'command', command: 'llm', promptVia: 'stdin' }))).toEqual({
      file: 'llm',
      args: [],
      stdinFile: '/p/.team/runs/r1/attempts/t1/a1/prompt.md',
    });
  });

  it('throws when no command is configured, since config validation should have refused it', () => {
    expect(() => command.build(makeInput({ adapter: 'command' }))).toThrow('command adapter: agent.command is required');
  });

  it('reports any output as ok with the output as final text', () => {
    expect(command.parse('hello\n')).toEqual({ ok: true, finalText: 'hello\n' });
  });
});

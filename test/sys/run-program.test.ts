// runProgram: a real program's exit code and whole output, its stdin, and a program that cannot start.
import { describe, expect, it } from 'vitest';
import { runProgram, withoutFinalNewline } from '../../src/sys/run-program.js';

const env = { PATH: process.env.PATH ?? '' };

describe('runProgram', () => {
  it('gives the exit code and both outputs, whole (beyond a pipe buffer and 1 MB)', async () => {
    const result = await runProgram('sh', ['-c', 'printf out; printf err >&2; head -c 3000000 /dev/zero | tr "\\0" x; exit 3'], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe('err');
    expect(result.stdout.length).toBe(3 + 3_000_000);
    expect(result.stdout.startsWith('outxxx')).toBe(true);
  });

  it('feeds its input, runs in its folder with exactly its env, and takes a program that ends without reading it', async () => {
    expect(await runProgram('sh', ['-c', 'cat; pwd; echo "[$HOME]"'], { cwd: '/', env, input: 'in\n' })).toEqual({ code: 0, stdout: 'in\n/\n[]\n', stderr: '' });
    const big = 'y'.repeat(2_000_000);
    expect((await runProgram('sh', ['-c', 'exit 0'], { env, input: big })).code).toBe(0);
  });

  it('says a program that cannot start on stderr, with code -1, and never throws', async () => {
    const missing = await runProgram('no-such-program-here', [], { env });
    expect(missing.code).toBe(-1);
    expect(missing.stderr).toMatch(/^no-such-program-here could not start: .*ENOENT/);
    const nowhere = await runProgram('sh', ['-c', 'true'], { cwd: '/no/such/folder', env });
    expect(nowhere.code).toBe(-1);
    expect(nowhere.stderr).toContain('could not start in /no/such/folder');
  });

  it('a signal is code -1', async () => {
    expect((await runProgram('sh', ['-c', 'kill -TERM $$'], { env })).code).toBe(-1);
  });

  it('drops one final newline', () => {
    expect(withoutFinalNewline('a\n\n')).toBe('a\n');
    expect(withoutFinalNewline('a\r\n')).toBe('a');
    expect(withoutFinalNewline('a')).toBe('a');
  });
});

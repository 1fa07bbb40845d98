import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS, redactSecrets, validateId, validateProjectPath, validateProjectPaths, validateText } from '../../src/log/guards.js';
import { UsageError } from '../../src/sys/errors.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function makeDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'teamline-guards-')));
  dirs.push(dir);
  return dir;
}

describe('checkpoint/guards validateId', () => {
  it('accepts ids of letters, digits, dot, underscore and dash up to 128 characters', () => {
    for (const id of ['t1', 'A', 'api.v2_fix-3', 'a'.repeat(128)]) expect(validateId(id, '--task')).toBe(id);
  });

  for (const id of ['', '.hidden', '-flag', '_x', '../x', 'a/b', 'a b', 'a'.repeat(129), 'é']) {
    it(`refuses the id ${JSON.stringify(id.length > 20 ? `${id.slice(0, 8)}… (${id.length})` : id)}, naming the argument`, () => {
      expect(() => validateId(id, '--task')).toThrow(UsageError);
      expect(() => validateId(id, '--task')).toThrow(/^--task: ".*" is not a valid id/);
    });
  }
});

describe('checkpoint/guards validateText', () => {
  it('accepts plain text up to the limit', () => {
    expect(validateText('x'.repeat(LIMITS.text), '--evidence')).toHaveLength(4_000);
  });

  it('refuses text one character over the limit', () => {
    expect(() => validateText('x'.repeat(LIMITS.text + 1), '--evidence')).toThrow('--evidence: 4001 characters, over the limit of 4000');
  });

  const SECRETS: Array<[string, string]> = [
    ['sk-abcdefghijklmnop1234', 'an API key (sk-...)'],
    ['ghp_abcdefghijklmnopqrstuvwxyz', 'a GitHub token (ghp_...)'],
    ['gho_abcdefghijklmnopqrstuvwxyz', 'a GitHub token (ghp_...)'],
    ['AKIAIOSFODNN7EXAMPLE', 'an AWS access key (AKIA...)'],
    ['-----BEGIN OPENSSH PRIVATE KEY-----', 'a private key block'],
    ['xoxb-1234567890-abcdef', 'a Slack token (xox...)'],
    ['password=hunter2', 'a password or secret assignment (password=...)'],
    ['API_KEY: abc', 'a password or secret assignment (password=...)'],
    ['sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'a Stripe secret key (sk_live_...)'],
    ['github_pat_11ABCDEFG0123456789_abcdefghij', 'a GitHub token (github_pat_...)'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N', 'a JSON web token (eyJ...)'],
  ];
  for (const [secret, what] of SECRETS) {
    it(`refuses text holding ${what}: ${secret.slice(0, 12)}…`, () => {
      expect(() => validateText(`see ${secret} here`, '--note')).toThrow(`--note: refused, it looks like ${what}; secrets never enter the log`);
    });
    it(`redacts ${what} from an agent's text: ${secret.slice(0, 12)}…`, () => {
      expect(redactSecrets(`see ${secret} here`)).toEqual({ text: 'see [redacted] here', found: [what] });
    });
  }

  it('accepts text that only mentions secrets in words', () => {
    for (const text of ['rotate the password', 'task-sk-1 done', 'the token expired', 'AKIA is a prefix']) expect(validateText(text, '--evidence')).toBe(text);
  });
});

describe('checkpoint/guards redactSecrets', () => {
  it('replaces every secret in agent text and names each kind found', () => {
    const text = 'use sk_live_4eC39HqLyjWDarjtT1zdp7dc, then ghp_abcdefghijklmnopqrstuvwxyz and ghp_zyxwvutsrqponmlkjihgfedcba';
    expect(redactSecrets(text)).toEqual({ text: 'use [redacted], then [redacted] and [redacted]', found: ['a Stripe secret key (sk_live_...)', 'a GitHub token (ghp_...)'] });
  });

  it('leaves text with no secret as it is', () => {
    expect(redactSecrets('rotate the password; eyJ alone is no token')).toEqual({ text: 'rotate the password; eyJ alone is no token', found: [] });
  });

  it('finds secrets again on a second call (no state kept between calls)', () => {
    expect(redactSecrets('token=abc').found).toHaveLength(1);
    expect(redactSecrets('token=abc').found).toHaveLength(1);
    expect(() => validateText('token=abc', '--next')).toThrow(UsageError);
  });
});

describe('checkpoint/guards validateProjectPath', () => {
  it('returns a path inside the project relative to it, with forward slashes', () => {
    const dir = makeDir();
    expect(validateProjectPath(dir, 'src/./api/../api/index.ts', '--artifact')).toBe('src/api/index.ts');
    expect(validateProjectPath(dir, join(dir, 'README.md'), '--artifact')).toBe('README.md');
    expect(validateProjectPath(dir, '.', '--artifact')).toBe('.');
  });

  it('accepts a symlink that stays inside the project', () => {
    const dir = makeDir();
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 'a.txt'), 'a');
    symlinkSync(join(dir, 'real'), join(dir, 'alias'));
    expect(validateProjectPath(dir, 'alias/a.txt', '--input')).toBe('alias/a.txt');
  });

  it('refuses a .. escape', () => {
    const dir = makeDir();
    expect(() => validateProjectPath(dir, 'src/../../x', '--input')).toThrow(`--input: "src/../../x" is outside the project ${dir}`);
  });

  it('refuses a path under a symlink that leads outside, even to a file not yet there', () => {
    const dir = makeDir();
    const outside = makeDir();
    symlinkSync(outside, join(dir, 'out'));
    expect(() => validateProjectPath(dir, 'out/new/file.txt', '--artifact')).toThrow(`--artifact: "out/new/file.txt" leads outside the project through a symbolic link (to ${join(outside, 'new/file.txt')})`);
  });

  it('refuses a NUL byte', () => {
    const dir = makeDir();
    expect(() => validateProjectPath(dir, 'a\0b', '--input')).toThrow('--input: "a\0b" holds a NUL byte');
  });

  it('refuses more paths than the limit', () => {
    const dir = makeDir();
    const many = Array.from({ length: LIMITS.paths + 1 }, (_, i) => `f${i}`);
    expect(() => validateProjectPaths(dir, many, '--input')).toThrow(`--input: 65 paths, over the limit of 64`);
  });
});

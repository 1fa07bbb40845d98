import { describe, expect, it } from 'vitest';
import { builtOnUse, once } from '../../src/sys/once.js';

describe('once and builtOnUse', () => {
  it('make a value at its first use only, and once', () => {
    let made = 0;
    const value = once(() => ({ n: ++made }));
    expect(made).toBe(0);
    expect(value()).toBe(value());
    expect(made).toBe(1);
  });

  it('build each value of an object at its first read, keeping its keys', () => {
    const made: string[] = [];
    const built = builtOnUse({ a: () => (made.push('a'), 1), b: () => (made.push('b'), 'two') });
    expect(Object.keys(built)).toEqual(['a', 'b']);
    expect(Object.hasOwn(built, 'b')).toBe(true);
    expect(made).toEqual([]);
    expect(built.b).toBe('two');
    expect(built.b).toBe('two');
    expect(made).toEqual(['b']);
  });
});

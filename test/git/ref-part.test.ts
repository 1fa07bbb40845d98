// Task ids as parts of branch names, checked against git's own rules (`git check-ref-format`).
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ID_PATTERN } from '../../src/log/guards.js';
import { idOfRefPart, refPart, refusedInRef } from '../../src/git/ref-part.js';

const RUN = 'team/20261028T131016577943Z-20fe61';

// True when git accepts `name` as a branch name.
function gitAccepts(name: string): boolean {
  try {
    execFileSync('git', ['check-ref-format', '--branch', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// Ids the id guard accepts, git refusing some of them in a ref.
const IDS = ['t1', 'a.b', 'a..b', 'a...b', 'x.lock', 'x.LOCK', 'x.lock.y', 'x.lock.lock', 'x.', 'x..', 'a.b.', 'lock', 'x-lock', 'x_lock', 'fix-1-d.lock', 'i2.t1', 'i2.x.lock', '1', 'A-b_c.d', 'a.'.repeat(64), 'a'.repeat(128)];

describe('ref-part', () => {
  it('takes only ids the id guard accepts', () => {
    for (const id of IDS) expect(ID_PATTERN.test(id), id).toBe(true);
  });

  it('says an id is refused exactly where git refuses it (and .lock in any case)', () => {
    for (const id of IDS) expect(refusedInRef(id), id).toBe(!gitAccepts(`${RUN}--${id}`) || id.toLowerCase().endsWith('.lock'));
  });

  it('gives every id a branch name git accepts, leaving accepted ids as they are', () => {
    for (const id of IDS) {
      expect(gitAccepts(`${RUN}--${refPart(id)}`), id).toBe(true);
      expect(refPart(id).length).toBe(id.length);
      if (!refusedInRef(id)) expect(refPart(id)).toBe(id);
    }
    expect(refPart('a..b')).toBe('a++b');
  });

  it('never gives two ids one name, and reads every name back', () => {
    const parts = IDS.map(refPart);
    expect(new Set(parts).size).toBe(IDS.length);
    for (const id of IDS) expect(idOfRefPart(refPart(id))).toBe(id);
  });
});

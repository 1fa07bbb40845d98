import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OutputLines } from '../../src/attempt/output-lines.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('runtime/output-lines', () => {
  it('returns only the complete lines written since the last read, holding back a partial one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'teamline-lines-'));
    dirs.push(dir);
    const file = join(dir, 'output.log');
    const lines = new OutputLines(file);
    expect(lines.readNew()).toEqual([]);
    appendFileSync(file, 'one\ntw');
    expect(lines.readNew()).toEqual(['one']);
    expect(lines.readNew()).toEqual([]);
    appendFileSync(file, 'o\r\nthree\n');
    expect(lines.readNew()).toEqual(['two', 'three']);
  });
});

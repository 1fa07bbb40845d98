import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readBoundedOutput } from '../../src/attempt/output.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'teamline-output-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('runtime/output', () => {
  it('reads output within the limit whole', () => {
    const file = join(dir, 'output.log');
    writeFileSync(file, 'line 1\nline 2\n{"type":"result"}\n');
    expect(readBoundedOutput(file, 100)).toBe('line 1\nline 2\n{"type":"result"}\n');
  });

  it('keeps the whole lines of the head and of the tail of longer output, and says how much it left out', () => {
    const file = join(dir, 'output.log');
    const noise = Array.from({ length: 200 }, (_, i) => `noise line ${String(i).padStart(3, '0')}`).join('\n');
    const text = `{"type":"thread.started","thread_id":"th-1"}\n${noise}\n{"type":"result","subtype":"success"}\n`;
    writeFileSync(file, text);
    const read = readBoundedOutput(file, 400);
    const lines = read.split('\n');
    expect(lines[0]).toBe('{"type":"thread.started","thread_id":"th-1"}');
    expect(lines.at(-2)).toBe('{"type":"result","subtype":"success"}');
    const marker = lines.find((l) => l.startsWith('[teamline: '))!;
    const kept = lines.filter((l) => l.startsWith('noise line '));
    // Every kept line is whole, and the bytes left out plus those kept make up the file.
    for (const line of kept) expect(line).toMatch(/^noise line \d{3}$/);
    const skipped = Number(/(\d+) bytes/.exec(marker)![1]);
    expect(Buffer.byteLength(read) - Buffer.byteLength(`${marker}\n`) + skipped).toBe(Buffer.byteLength(text));
    expect(Buffer.byteLength(read)).toBeLessThanOrEqual(400 + Buffer.byteLength(`${marker}\n`));
  });

  it('reads a missing output file as empty', () => {
    expect(readBoundedOutput(join(dir, 'none.log'))).toBe('');
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeProgress } from '../../src/session/progress.js';
import { terminalText } from '../../src/sys/terminal-text.js';

afterEach(() => vi.restoreAllMocks());

describe('makeProgress', () => {
  it('says the lines of one turn in one write each way, in order, before the next turn', async () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const progress = makeProgress({ json: true });
    progress.emit({ type: 'a' }, 'first');
    progress.emit({ type: 'b' });
    progress.emit({ type: 'c' }, 'third \u001b[2J');
    expect(err).not.toHaveBeenCalled();
    await new Promise((resolve) => setImmediate(resolve));
    // Each line made safe for a terminal, as before.
    expect(err.mock.calls).toEqual([[`first\n${terminalText('third \u001b[2J')}\n`]]);
    expect(out).toHaveBeenCalledTimes(1);
    expect(String(out.mock.calls[0]![0]).trim().split('\n').map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(['a', 'b', 'c']);
    progress.emit({ type: 'd' }, 'next turn');
    await new Promise((resolve) => setImmediate(resolve));
    expect(err.mock.calls.at(-1)).toEqual(['next turn\n']);
  });

  it('says nothing on stderr when quiet, and adds one exit listener however many turns it speaks in', async () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const listeners = process.listenerCount('exit');
    const progress = makeProgress({ json: false, quiet: true });
    progress.emit({ type: 'a' }, 'hidden');
    const loud = makeProgress({ json: false });
    for (let turn = 0; turn < 12; turn++) {
      loud.emit({ type: 't' }, `turn ${turn}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(process.listenerCount('exit')).toBe(listeners + 1);
    expect(err.mock.calls.map((call) => String(call[0]))).toEqual(Array.from({ length: 12 }, (_, turn) => `turn ${turn}\n`));
  });
});

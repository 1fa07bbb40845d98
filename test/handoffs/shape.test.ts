import { describe, expect, it } from 'vitest';
import { checkHandoffShape } from '../../handoffs/read.js';

const GOOD = [
  '## Handoff: team-plan → team-exec',
  '- **Decided**: 2 tasks',
  '  - a "A" → worker-1',
  '  - b "B" → worker-2; after a',
  '- **Rejected**: no alternative plan recorded',
  '- **Risks**: a dependency chain of 2 tasks',
  '  - a failing would block b',
  '- **Files**: no handoff before this one',
  '- **Remaining**: team-exec runs 2 tasks',
  '  - wave 1: a',
];

const textOf = (lines: string[]) => `${lines.join('\n')}\n`;

describe('handoffs/shape', () => {
  it('accepts a handoff in the SPEC shape', () => {
    expect(checkHandoffShape(textOf(GOOD))).toBeUndefined();
  });

  it('accepts a handoff without a final newline', () => {
    expect(checkHandoffShape(GOOD.join('\n'))).toBeUndefined();
  });

  it('rejects a first line that is not the handoff title', () => {
    expect(checkHandoffShape(textOf(['# Handoff team-plan', ...GOOD.slice(1)]))).toMatch(/^line 1 should read/);
  });

  it('rejects bullets out of order', () => {
    const swapped = [...GOOD];
    [swapped[4], swapped[5]] = [GOOD[5]!, GOOD[4]!];
    expect(checkHandoffShape(textOf(swapped))).toMatch(/line 5 should be the "Rejected" bullet/);
  });

  it('rejects a missing bullet', () => {
    expect(checkHandoffShape(textOf([...GOOD.slice(0, 8), '  - one', '  - two']))).toBe('the "Remaining" bullet is missing');
  });

  it('rejects a placeholder bullet', () => {
    const lines = [...GOOD];
    lines[5] = '- **Risks**: ...';
    expect(checkHandoffShape(textOf(lines))).toMatch(/"Risks" bullet on line 6 is empty or a placeholder/);
  });

  it('rejects fewer than 10 or more than 20 lines', () => {
    expect(checkHandoffShape(textOf(GOOD.slice(0, 9)))).toMatch(/has 9 lines/);
    expect(checkHandoffShape(textOf([...GOOD, ...Array.from({ length: 11 }, (_, i) => `  - wave ${i + 2}: x`)]))).toMatch(/has 21 lines/);
  });

  it('rejects blank lines and text outside the bullets', () => {
    expect(checkHandoffShape(textOf([...GOOD.slice(0, 2), '', ...GOOD.slice(2)]))).toMatch(/line 3 is neither a bullet nor an indented detail/);
    expect(checkHandoffShape(textOf([GOOD[0]!, '  - early detail', ...GOOD.slice(1)]))).toMatch(/before the "Decided" bullet/);
  });

  it('rejects a sixth top-level bullet', () => {
    expect(checkHandoffShape(textOf([...GOOD, '- **Notes**: more']))).toMatch(/sixth top-level bullet/);
  });
});

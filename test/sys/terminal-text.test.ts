// The one sanitizer every printer uses: what it removes, what it keeps, what it shows by name.
import { describe, expect, it } from 'vitest';
import { quoteShort, terminalLine, terminalText } from '../../src/sys/terminal-text.js';

describe('terminal-text', () => {
  it('removes whole CSI, OSC and DCS sequences: colours, cursor moves, a clear screen, a window title, a clipboard write', () => {
    expect(terminalText('a\u001b[31mred\u001b[0m\u001b[2J\u001b[H\u001b[10;5Hb')).toBe('aredb');
    expect(terminalText('x\u001b]2;pwned\u0007y\u001b]0;also\u001b\\z')).toBe('xyz');
    expect(terminalText('c\u001b]52;c;aGk=\u0007d')).toBe('cd');
    expect(terminalText('p\u001bPq#0;2;0;0;0\u001b\\q\u001b_apc\u001b\\r')).toBe('pqr');
    expect(terminalText('reset\u001bc\u001b7\u001b(Bdone')).toBe('resetdone');
  });

  it('removes only the introducer of a sequence with no end, so that what follows stays visible', () => {
    expect(terminalText('title \u001b]2;pwn… and the rest')).toBe('title 2;pwn… and the rest');
    expect(terminalText('a\u001b]0;x\nb\u0007c')).toBe('a0;x\nb c');
    expect(terminalText('d\u001bPq no end\nmore')).toBe('dq no end\nmore');
  });

  it('turns other controls into spaces and keeps newlines and tabs; a CRLF becomes a newline', () => {
    expect(terminalText('safe\rEVIL\u0007\u0008\u007f\u009b2J\u0085x\u001b')).toBe('safe EVIL    2J x ');
    expect(terminalText('one\r\ntwo\n\tthree')).toBe('one\ntwo\n\tthree');
  });

  it('shows bidi overrides, embeddings and isolates by name', () => {
    expect(terminalText('abc\u202Egnp.exe\u2066x\u2069')).toBe('abc<U+202E>gnp.exe<U+2066>x<U+2069>');
    expect(terminalText('\u202A\u202B\u202C\u202D\u2067\u2068')).toBe('<U+202A><U+202B><U+202C><U+202D><U+2067><U+2068>');
  });

  it('keeps a line on one line, and quotes a short prefix of a long value', () => {
    expect(terminalLine('a\nb\tc\u001b]2;t\u0007d')).toBe('a b cd');
    expect(quoteShort('x'.repeat(1_000_000))).toBe(`"${'x'.repeat(59)}…"`);
    expect(quoteShort('ok\u001b[2J\n')).toBe('"ok "');
  });

  it('leaves plain text, unicode and emoji as they are', () => {
    const text = 'run ✔ completed — 3 of 3 · café 日本 🚀\n  next';
    expect(terminalText(text)).toBe(text);
  });
});

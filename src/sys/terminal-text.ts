// Text from agents, files or the log, made safe for a terminal: nothing in it can move the
// cursor, clear the screen, set the window title, write the clipboard or reorder what is shown.

// Whole escape sequences: CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \ on one line, e.g. a
// window title or an OSC 52 clipboard write), DCS/SOS/PM/APC strings (ESC P|X|^|_ … ESC \), and
// the short ones (ESC 7, ESC c, ESC ( B). Of a string with no end only its introducer goes: what
// follows stays visible.
const SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b\n]*(?:\u0007|\u001b\\)|[PX^_][^\u001b\n]*\u001b\\|[ -/]*[0-~])/g;
// C0 controls but newline and tab, DEL, C1 controls (U+009B is an 8-bit CSI), and a lone ESC or CR.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const CONTROL_OR_SPACE = /[\u0000-\u001f\u007f-\u009f]/g;
// Bidi embeddings, overrides and isolates: shown by name, so that text cannot read backwards.
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

// The text with every escape sequence removed, every other control character but newline and tab
// turned into a space (a CRLF into a newline), and every bidi control shown as `<U+202E>`.
export function terminalText(text: string): string {
  return visibleBidi(text.replace(SEQUENCE, '').replace(/\r\n/g, '\n').replace(CONTROL, ' '));
}

// terminalText on one line: newlines and tabs become spaces too.
export function terminalLine(text: string): string {
  return visibleBidi(text.replace(SEQUENCE, '').replace(CONTROL_OR_SPACE, ' '));
}

// A value quoted in a message: one safe line, at most `max` characters (a long one is cut with …).
export function quoteShort(value: string, max = 60): string {
  const line = terminalLine(value);
  return `"${line.length > max ? `${line.slice(0, max - 1)}…` : line}"`;
}

function visibleBidi(text: string): string {
  return text.replace(BIDI, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);
}

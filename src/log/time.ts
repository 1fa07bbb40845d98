// Time stamps and ids of the log: `<YYYYMMDD>T<HHMMSS><micro>Z`, sorting in the order written.
import { customAlphabet } from 'nanoid';

// Lower-case hex and letters only, so a token never holds the `-` that separates name parts.
const makeToken6 = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 6);
const makeHex6 = customAlphabet('0123456789abcdef', 6);

let lastMicros = 0n;

// Microseconds since the epoch, strictly increasing within this process.
function nowMicros(): bigint {
  const micros = BigInt(Math.floor((performance.timeOrigin + performance.now()) * 1000));
  lastMicros = micros > lastMicros ? micros : lastMicros + 1n;
  return lastMicros;
}

// New stamps sort after `stamp` (the newest name in a log), whatever the clock says: a clock set
// back between a crash and a resume must not write events that sort before the old ones.
export function keepStampsAfter(stamp: string): void {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{6})Z/.exec(stamp);
  if (!m) return;
  const [, y, mo, d, h, mi, sec, micro] = m.map(Number) as number[];
  const micros = BigInt(Date.UTC(y!, mo! - 1, d!, h!, mi!, sec!)) * 1000n + BigInt(micro!);
  if (micros > lastMicros) lastMicros = micros;
}

// A stamp such as 20261028T131016577943Z.
export function makeStamp(): string {
  const micros = nowMicros();
  const date = new Date(Number(micros / 1000n));
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return (
    `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}T` +
    `${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}` +
    `${pad(Number(micros % 1_000_000n), 6)}Z`
  );
}

// A run id such as 20261028T131016577943Z-20fe61.
export function makeRunId(): string {
  return `${makeStamp()}-${makeHex6()}`;
}

// The random part of a file name, so that two writers never pick the same name.
export function makeToken(): string {
  return makeToken6();
}

// Current time for the `at` fields.
export function nowIso(): string {
  return new Date().toISOString();
}

// Milliseconds since the epoch of a log time: an ISO time (teamline's `at`) or a stamp such as
// 20261028T131016577943Z (the seed's times, and every run id's start); NaN for anything else.
export function parseLogTime(text: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{6})Z$/.exec(text);
  if (!m) return Date.parse(text);
  const [, y, mo, d, h, mi, sec, micro] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, sec!) + Math.floor(micro! / 1000);
}

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

// Hands the result over: atomically to the result file, or as the last fenced ```json block on stdout.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Behaviour } from './scenario.js';
import type { SimResult } from './results.js';

// What a scenario's `malformed` option sends instead of a valid result.
const MALFORMED_TEXT = {
  'not-json': 'sim: this result is not JSON {',
  'missing-fields': JSON.stringify({ status: 'completed' }),
} as const;

// The result's text: the JSON itself, or the scenario's deliberately broken version.
export function toResultText(result: SimResult, behaviour: Behaviour): string {
  if (behaviour.malformed) return MALFORMED_TEXT[behaviour.malformed];
  return JSON.stringify(result, null, 2);
}

// Writes via a temporary file and a rename, so the runtime never reads half a result.
export function writeResultFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.tmp-${process.pid}`;
  writeFileSync(temporary, `${text}\n`);
  renameSync(temporary, file);
}

// Prints the result as a fenced json block, the protocol's fallback for agents that cannot write files.
export function printFencedResult(text: string): void {
  process.stdout.write(`sim: result follows\n\`\`\`json\n${text}\n\`\`\`\n`);
}

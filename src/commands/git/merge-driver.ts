// `team merge-driver %O %A %B %P`: git's merge driver for `.checkpoints/*.checkpoint.json`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { execa } from 'execa';
import { UsageError } from '../../sys/errors.js';
import { mergeCheckpoints } from '../../checkpoint/merge.js';
import { isObject } from '../../checkpoint/validate.js';
import { terminalLine } from '../../sys/terminal-text.js';

// Merges base %O, ours %A (the output) and theirs %B; 0 merged, 1 conflict markers left in %A.
export async function mergeDriverCommand(argv: string[]): Promise<number> {
  const [base, ours, theirs, path = ours] = argv;
  if (!base || !ours || !theirs || argv.length > 4) throw new UsageError('team merge-driver: expected <base %O> <ours %A> <theirs %B> [<path %P>]');
  for (const [name, file] of [['ours (%A)', ours], ['theirs (%B)', theirs]] as const) {
    if (!existsSync(file)) throw new UsageError(`team merge-driver: ${name} ${file} does not exist`);
  }
  const sides = [parse(base, true), parse(ours, false), parse(theirs, false)];
  if (sides.some((s) => s === undefined)) {
    process.stderr.write(`${terminalLine(`team merge-driver: ${path}: a side is not a JSON object; leaving conflict markers`)}\n`);
    return markConflict(base, ours, theirs, path!);
  }
  const result = mergeCheckpoints(sides[0]!, sides[1]!, sides[2]!);
  if ('conflicts' in result) {
    process.stderr.write(`${terminalLine(`team merge-driver: ${path}: changed on both sides: ${result.conflicts.join(', ')}`)}\n`);
    return markConflict(base, ours, theirs, path!);
  }
  writeFileSync(ours, `${JSON.stringify(result.merged, null, 2)}\n`);
  return 0;
}

// A missing or empty base counts as {}; a side that does not parse to an object is undefined.
function parse(file: string, isBase: boolean): Record<string, unknown> | undefined {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (isBase && text.trim() === '') return {};
  try {
    const doc: unknown = JSON.parse(text);
    return isObject(doc) ? doc : undefined;
  } catch {
    return undefined;
  }
}

// Ordinary conflict markers in %A, by `git merge-file`; the merge is left to a person.
async function markConflict(base: string, ours: string, theirs: string, path: string): Promise<number> {
  await execa('git', ['merge-file', '-L', `ours:${path}`, '-L', `base:${path}`, '-L', `theirs:${path}`, ours, existsSync(base) ? base : '/dev/null', theirs], { reject: false });
  return 1;
}

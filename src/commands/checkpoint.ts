// `team checkpoint validate [FILE...] [--strict]`: OPCHAIN.md's validator over checkpoint files.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../sys/errors.js';
import { validateCheckpointText } from '../opchain/validate.js';
import { checkpointsDir, CHECKPOINT_FILE } from '../opchain/write.js';
import { optionalString, parseFlags } from './args/args.js';
import { terminalText } from '../sys/terminal-text.js';
import { FLAGS } from './args/flags.js';

// Prints each file's errors and warnings; 0 when all pass (warnings fail only with --strict), else 1.
export function checkpointCommand(argv: string[]): number {
  const cmd = 'team checkpoint validate';
  if (argv[0] !== 'validate') throw new UsageError(`team checkpoint: expected \`validate [FILE...] [--strict]\`${argv[0] ? `, not "${argv[0]}"` : ''}`);
  const args = parseFlags(argv.slice(1), FLAGS.checkpoint, cmd);
  const dir = resolve(optionalString(args, 'cwd') ?? process.cwd());
  const files = args.positionals.length ? args.positionals.map((f) => resolve(dir, f)) : [join(checkpointsDir(dir), CHECKPOINT_FILE)];
  for (const file of files) if (!existsSync(file)) throw new UsageError(`${cmd}: ${file} does not exist`);
  let failed = false;
  for (const file of files) {
    const { errors, warnings } = validateCheckpointText(readFileSync(file, 'utf8'), file);
    const fails = errors.length > 0 || (args.values.strict === true && warnings.length > 0);
    failed ||= fails;
    const lines = [`${fails ? 'FAIL' : 'ok  '} ${file}`, ...errors.map((e) => `  error: ${e}`), ...warnings.map((w) => `  warning: ${w}`)];
    process.stdout.write(`${terminalText(lines.join('\n'))}\n`);
  }
  return failed ? 1 : 0;
}

// `team checkpoint validate [FILE...] [--strict]`: OPCHAIN.md's validator over checkpoint files.
import { readRegularFile } from '../../sys/regular-file.js';
import { join, resolve } from 'node:path';
import { UsageError } from '../../sys/errors.js';
import { validateCheckpointText } from '../../checkpoint/validate.js';
import { checkpointsDir, CHECKPOINT_FILE } from '../../checkpoint/write.js';
import { optionalString, parseFlags } from '../args/args.js';
import { terminalText } from '../../sys/terminal-text.js';
import { FLAGS } from '../args/flags.js';

// A checkpoint is far smaller (OPCHAIN.md warns above 32 KB); a bigger file is not one to read whole.
const MAX_CHECKPOINT_BYTES = 16 * 1024 * 1024;

// Prints each file's errors and warnings; 0 when all pass (warnings fail only with --strict), else 1.
export function checkpointCommand(argv: string[]): number {
  const cmd = 'team checkpoint validate';
  if (argv[0] !== 'validate') throw new UsageError(`team checkpoint: expected \`validate [FILE...] [--strict]\`${argv[0] ? `, not "${argv[0]}"` : ''}`);
  const args = parseFlags(argv.slice(1), FLAGS.checkpoint, cmd);
  const dir = resolve(optionalString(args, 'cwd') ?? process.cwd());
  const files = args.positionals.length ? args.positionals.map((f) => resolve(dir, f)) : [join(checkpointsDir(dir), CHECKPOINT_FILE)];
  // Each file read as one anyone could have replaced: a FIFO or a folder is refused at once, never waited on.
  const texts = files.map((file) => {
    const reading = readRegularFile(file, MAX_CHECKPOINT_BYTES, { within: '/' });
    if (reading.ok) return reading.text;
    throw new UsageError(`${cmd}: ${file} ${reading.missing ? 'does not exist' : `cannot be read: ${reading.reason}`}`);
  });
  let failed = false;
  for (const [index, file] of files.entries()) {
    const { errors, warnings } = validateCheckpointText(texts[index]!, file);
    const fails = errors.length > 0 || (args.values.strict === true && warnings.length > 0);
    failed ||= fails;
    const lines = [`${fails ? 'FAIL' : 'ok  '} ${file}`, ...errors.map((e) => `  error: ${e}`), ...warnings.map((w) => `  warning: ${w}`)];
    process.stdout.write(`${terminalText(lines.join('\n'))}\n`);
  }
  return failed ? 1 : 0;
}

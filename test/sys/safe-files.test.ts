// The files a person or an agent could have replaced (current, run.json, the lock, the marks, the
// config, the checkpoint, the init manifest, command files, .gitattributes) are read and written
// only through the safe reader and writer: the modules that handle them open nothing plainly.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/team.js';

// Each module that reads or writes one of those files.
const MODULES = [
  'config/load.ts',
  'src/log/current-run.ts',
  'src/log/read.ts',
  'src/log/run-marks.ts',
  'src/store/files/lock.ts',
  'src/cancel/request.ts',
  'src/commands/light/cancel-ask.ts',
  'src/views/wait/summary.ts',
  'src/checkpoint/write.ts',
  'src/checkpoint/git-drivers.ts',
  'src/commands/git/checkpoint.ts',
  'src/commands/init.ts',
  'src/commands/init/current.ts',
  'src/commands/doctor/files.ts',
];
// The plain calls that follow links, block on a FIFO or write in place.
const PLAIN = /\b(readFileSync|writeFileSync|appendFileSync|createReadStream|createWriteStream|readFile|writeFile|appendFile)\b/;

describe('sys/safe-files', () => {
  it.each(MODULES)('%s opens no such file plainly', (module) => {
    const lines = readFileSync(join(ROOT, module), 'utf8').split('\n');
    expect(lines.filter((line) => PLAIN.test(line) && !line.trimStart().startsWith('//'))).toEqual([]);
  });
});

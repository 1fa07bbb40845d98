// `node dist/bench/start-main.js`: the start-up benchmark alone; never fails on time.
import { formatComparison } from './compare.js';
import { benchStart } from './start.js';

process.stdout.write('command start-up\n');
for (const row of benchStart()) process.stdout.write(`  ${formatComparison(row)}\n`);

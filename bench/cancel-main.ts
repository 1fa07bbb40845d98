// `node dist/bench/cancel-main.js`: the cancel latency benchmark on its own; never fails on time.
import { benchCancel } from './cancel.js';
import { formatComparison } from './compare.js';

process.stdout.write('cancel latency\n');
for (const row of await benchCancel()) process.stdout.write(`  ${formatComparison(row)}\n`);

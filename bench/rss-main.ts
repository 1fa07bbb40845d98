// `node dist/bench/rss-main.js`: the orchestrator memory benchmark alone; never fails on its figure.
import { formatComparison } from './compare.js';
import { benchRss } from './rss.js';

process.stdout.write('orchestrator memory\n');
for (const row of await benchRss()) process.stdout.write(`  ${formatComparison(row)}\n`);

// `npm run bench`: runs each benchmark and prints its rows beside their baselines; never fails on time.
import { formatComparison, type Comparison } from './compare.js';
import { benchStore } from './store.js';

// Each benchmark returns its comparisons; add new ones here.
const BENCHMARKS: Array<{ name: string; run: () => Comparison[] | Promise<Comparison[]> }> = [{ name: 'checkpoint store', run: benchStore }];

for (const bench of BENCHMARKS) {
  process.stdout.write(`${bench.name}\n`);
  for (const row of await bench.run()) process.stdout.write(`  ${formatComparison(row)}\n`);
}

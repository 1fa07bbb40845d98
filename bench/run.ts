// `npm run bench`: runs each benchmark and prints its rows beside their baselines; never fails on time.
// `npm run bench -- store pipeline` runs only the named ones.
import { benchCancel } from './cancel.js';
import { formatComparison, type Comparison } from './compare.js';
import { benchPipeline } from './pipeline.js';
import { benchResume } from './resume.js';
import { benchStore } from './store.js';

// Each benchmark returns its comparisons; add new ones here.
const BENCHMARKS: Array<{ name: string; key: string; run: () => Comparison[] | Promise<Comparison[]> }> = [
  { name: 'checkpoint store', key: 'store', run: benchStore },
  { name: 'pipeline overhead (200 tasks, 8 workers)', key: 'pipeline', run: benchPipeline },
  { name: 'resume preparation (10,000 events)', key: 'resume', run: benchResume },
  { name: 'cancel latency (20 workers)', key: 'cancel', run: benchCancel },
];

const wanted = process.argv.slice(2);
for (const bench of BENCHMARKS.filter((b) => wanted.length === 0 || wanted.includes(b.key))) {
  process.stdout.write(`${bench.name}\n`);
  for (const row of await bench.run()) process.stdout.write(`  ${formatComparison(row)}\n`);
}

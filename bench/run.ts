// `npm run bench`: runs each benchmark and prints its rows beside their baselines; never fails on time.
// `npm run bench -- store pipeline` runs only the named ones. Sizes: BENCH_RESUME_EVENTS,
// BENCH_PIPELINE_TASKS, BENCH_RSS_ITERATIONS, BENCH_RSS_TASKS; BENCH_DIR picks the disk.
import { benchCancel } from './cancel.js';
import { formatComparison, type Comparison } from './compare.js';
import { benchPipeline } from './pipeline.js';
import { benchResume } from './resume.js';
import { benchRss } from './rss.js';
import { benchStart } from './start.js';
import { benchStore } from './store.js';

// Each benchmark returns its comparisons; add new ones here.
const BENCHMARKS: Array<{ name: string; key: string; run: () => Comparison[] | Promise<Comparison[]> }> = [
  { name: 'checkpoint store', key: 'store', run: benchStore },
  { name: 'command start-up (status, cancel)', key: 'start', run: benchStart },
  { name: 'pipeline overhead (50, 200, 1,000 tasks on 8 workers)', key: 'pipeline', run: benchPipeline },
  { name: 'resume preparation (1k, 10k, 100k events)', key: 'resume', run: benchResume },
  { name: 'orchestrator memory (ralph, 10 x 50 tasks)', key: 'rss', run: benchRss },
  { name: 'cancel latency (20 workers)', key: 'cancel', run: benchCancel },
];

const wanted = process.argv.slice(2);
for (const bench of BENCHMARKS.filter((b) => wanted.length === 0 || wanted.includes(b.key))) {
  process.stdout.write(`${bench.name}\n`);
  for (const row of await bench.run()) process.stdout.write(`  ${formatComparison(row)}\n`);
}

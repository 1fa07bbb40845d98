// `npm run bench`: runs each benchmark and prints its rows beside their baselines; never fails on time.
// `npm run bench -- store pipeline` runs only the named ones; `--markdown` (or BENCH_MARKDOWN=1)
// prints one dated markdown table instead (docs/benchmarks.md). Sizes: BENCH_RESUME_EVENTS,
// BENCH_PIPELINE_TASKS, BENCH_RSS_ITERATIONS, BENCH_RSS_TASKS; BENCH_DIR picks the disk.
import { availableParallelism } from 'node:os';
import { benchBestOf } from './best-of.js';
import { benchCancel } from './cancel.js';
import { benchFanout } from './fanout.js';
import { benchFence } from './fence.js';
import { formatComparison, MARKDOWN_HEADER, markdownComparison, type Comparison } from './parts/compare.js';
import { benchOuterTurns } from './outer-turns.js';
import { benchOwnership } from './ownership.js';
import { benchPipeline } from './pipeline.js';
import { benchPrompts } from './prompts.js';
import { benchResume } from './resume.js';
import { benchRss } from './rss.js';
import { benchStart } from './start.js';
import { benchStore } from './store.js';
import { benchTelemetry } from './telemetry.js';
import { benchToolCall } from './tool-call.js';

// Every process the bench starts, teamline's and the baselines' alike, starts without reading the CA
// file NODE_EXTRA_CA_CERTS names: node reads it at every start, TLS or not (75 ms of CPU on machines
// that set it for a proxy), a cost of the machine's setting that no row is about.
if (process.env.NODE_EXTRA_CA_CERTS) process.env.NODE_EXTRA_CA_CERTS = '';

// Each benchmark returns its comparisons; add new ones here.
const BENCHMARKS: Array<{ name: string; key: string; run: () => Comparison[] | Promise<Comparison[]> }> = [
  { name: 'checkpoint store', key: 'store', run: benchStore },
  { name: 'command start-up (status, cancel)', key: 'start', run: benchStart },
  { name: 'pipeline overhead (50, 200, 1,000 tasks on 8 workers)', key: 'pipeline', run: benchPipeline },
  { name: 'resume preparation (1k, 10k, 100k events)', key: 'resume', run: benchResume },
  { name: 'orchestrator memory (ralph, 10 x 50 tasks)', key: 'rss', run: benchRss },
  { name: 'cancel latency (20 workers)', key: 'cancel', run: benchCancel },
  { name: 'fan-out under a rate limit (20 attempts, 4 admitted at once)', key: 'fanout', run: benchFanout },
  { name: 'team tool call round trip (file store)', key: 'tools', run: benchToolCall },
  { name: 'the fence per attempt (bubblewrap)', key: 'fence', run: benchFence },
  { name: 'prompts a provider can cache (two workers\' exec prompts)', key: 'prompts', run: benchPrompts },
  { name: 'the outer agent\'s turns (/team in an agent, a run followed with team wait)', key: 'outer', run: benchOuterTurns },
  { name: 'file ownership (8 tasks in 4 pairs on one file each, 4 workers)', key: 'ownership', run: benchOwnership },
  { name: 'the best of N (4 tasks, each as 2 candidates at once)', key: 'bestof', run: benchBestOf },
  { name: 'live telemetry (a receiver that takes, refuses or hangs)', key: 'telemetry', run: benchTelemetry },
];

const args = process.argv.slice(2);
const markdown = args.includes('--markdown') || process.env.BENCH_MARKDOWN === '1';
const wanted = args.filter((a) => a !== '--markdown');
const unknown = wanted.filter((key) => !BENCHMARKS.some((b) => b.key === key));
if (unknown.length) {
  process.stderr.write(`bench: no benchmark named ${unknown.join(', ')}; the names are ${BENCHMARKS.map((b) => b.key).join(', ')}\n`);
  process.exit(2);
}
const chosen = BENCHMARKS.filter((b) => wanted.length === 0 || wanted.includes(b.key));
if (markdown) {
  const date = new Date().toISOString().slice(0, 10);
  process.stdout.write(`Measured ${date} (UTC) by \`npm run bench -- --markdown${wanted.map((w) => ` ${w}`).join('')}\`: node ${process.version}, ${availableParallelism()} cores.\n\n${MARKDOWN_HEADER}\n`);
}
for (const bench of chosen) {
  if (!markdown) process.stdout.write(`${bench.name}\n`);
  for (const row of await bench.run()) process.stdout.write(markdown ? `${markdownComparison(row)}\n` : `  ${formatComparison(row)}\n`);
}

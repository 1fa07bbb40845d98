// `node dist/bench/pipeline-main.js`: the pipeline benchmark alone; never fails on time.
import { formatComparison } from './compare.js';
import { benchPipeline } from './pipeline.js';

process.stdout.write('pipeline\n');
for (const row of await benchPipeline()) process.stdout.write(`  ${formatComparison(row)}\n`);

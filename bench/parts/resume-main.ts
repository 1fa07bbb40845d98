// `node dist/bench/parts/resume-main.js`: the resume benchmark alone, with where its time goes; never fails on time.
import { formatComparison } from './compare.js';
import { measureResume } from '../resume.js';

const { rows, sizes } = await measureResume();
process.stdout.write('resume\n');
for (const row of rows) process.stdout.write(`  ${formatComparison(row)}\n`);
for (const { events, parts } of sizes) {
  const split = [`read ${parts.readMs.toFixed(1)}`, `fold ${parts.foldMs.toFixed(1)}`, `replay ${parts.replayMs.toFixed(1)}`, `reconcile ${parts.reconcileMs.toFixed(2)}`];
  process.stdout.write(`  resume prep medians at ${events} events (ms): ${split.join(', ')}\n`);
}

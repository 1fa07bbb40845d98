// The bench's rows as a markdown table (docs/benchmarks.md), and its refusal of an unknown name.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MARKDOWN_HEADER, markdownComparison } from '../../bench/parts/compare.js';
import { ROOT } from '../helpers/team.js';

describe('bench/compare', () => {
  it('prints a targeted row as a markdown table row with its ratio and verdict', () => {
    const row = { name: 'store write', detail: '5000 events, fsync', ms: 812.3, baselineMs: 701, target: 1.5 };
    expect(markdownComparison(row)).toBe('| store write | 5000 events, fsync | 812.3 ms | 701.0 ms | 1.16x | ≤ 1.5x | PASS |');
  });

  it('says OVER, keeps the unit and escapes a bar in a cell', () => {
    const row = { name: 'orchestrator RSS', detail: 'a | b', ms: 160, baselineMs: 150, target: 1, unit: 'MB' };
    expect(markdownComparison(row)).toBe('| orchestrator RSS | a \\| b | 160.0 MB | 150.0 MB | 1.07x | ≤ 1x | OVER |');
  });

  it('says why a row has no target', () => {
    const row = { name: 'pipeline job', detail: '200 tasks', ms: 2000, baselineMs: 1000, untargeted: 'the row above holds it' };
    expect(markdownComparison(row)).toBe('| pipeline job | 200 tasks | 2000.0 ms | 1000.0 ms | 2.00x | no target: the row above holds it |  |');
  });

  it('has a header with as many columns as a row', () => {
    const columns = (line: string) => line.split(/(?<!\\)\|/).length;
    const row = markdownComparison({ name: 'x', detail: 'y', ms: 1, baselineMs: 1, target: 1 });
    for (const line of MARKDOWN_HEADER.split('\n')) expect(columns(line)).toBe(columns(row));
  });

  it('refuses a benchmark name it does not know, naming the ones it has', () => {
    const result = spawnSync('node', [`${ROOT}/dist/bench/run.js`, '--markdown', 'stor'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('bench: no benchmark named stor; the names are store, start, pipeline, resume, rss, cancel, fanout, tools, fence, prompts, outer, ownership, bestof, telemetry\n');
    expect(result.stdout).toBe('');
  });
});

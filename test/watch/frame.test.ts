// The live view's frame and plain lines, and the last line read from an output's tail.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { plainFacts, renderFrame } from '../../src/watch/frame.js';
import { lastLine, type WatchModel } from '../../src/watch/model.js';

const dir = mkdtempSync(join(tmpdir(), 'teamline-frame-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MODEL: WatchModel = {
  runId: 'r1',
  mode: 'ralph',
  task: 'refuse\nempty names',
  status: 'running',
  stage: 'team-exec',
  iteration: 2,
  maxIterations: 10,
  loop: 1,
  maxFixLoops: 3,
  costUsd: 0.5,
  tokens: { input: 1200, output: 300 },
  elapsedMs: 75_500,
  lanes: [{ worker: 'worker-1', task: 'i2.t1', attempt: 2, stage: 'team-exec', status: 'running', elapsedMs: 4200, lastLine: 'compiling' }],
  attention: ['stale approval: team-prd prd.md (changed)'],
  ended: false,
};

describe('frame', () => {
  it('shows the ralph iteration, the fix loop, cost, each lane and what needs attention', () => {
    expect(renderFrame(MODEL, 120)).toEqual([
      'teamline r1 · ralph · running · 1m15s',
      'stage team-exec · fix loop 1 of 3 · ralph iteration 2 of 10 · $0.5000 · tokens 1200 in / 300 out',
      'task refuse empty names',
      '',
      '  worker-1  i2.t1 a2  running        4.2s  compiling',
      '',
      'needs attention:',
      '  stale approval: team-prd prd.md (changed)',
      'q quits (the run goes on)',
    ]);
  });

  it('cuts every line to the terminal width', () => {
    for (const line of renderFrame(MODEL, 60)) expect(line.length).toBeLessThanOrEqual(60);
  });

  it('gives plain facts that change only when the run does', () => {
    expect(plainFacts(MODEL)).toEqual(['stage team-exec · fix loop 1 of 3 · ralph iteration 2 of 10', 'worker-1 i2.t1 a2 team-exec running', 'needs attention: stale approval: team-prd prd.md (changed)']);
    expect(plainFacts({ ...MODEL, elapsedMs: 99_000, lanes: [{ ...MODEL.lanes[0]!, elapsedMs: 9000, lastLine: 'linking' }] })).toEqual(plainFacts(MODEL));
  });

  it('reads the last non-empty line of a long output, without control characters', () => {
    const file = join(dir, 'output.log');
    writeFileSync(file, `${'noise line\n'.repeat(200_000)}\u001b[32mall tests pass\u001b[0m\u0007\n\n`);
    expect(lastLine(file)).toBe('all tests pass');
    expect(lastLine(join(dir, 'missing.log'))).toBe('');
  });
});

// The live view's frame and plain lines, and the last line read from an output's tail.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { plainFacts, renderFrame } from '../../../src/views/watch/frame.js';
import type { WatchModel } from '../../../src/views/watch/model.js';
import { lastLine } from '../../../src/sys/last-line.js';

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
  tasks: { done: 1, total: 3 },
  lanes: [{ worker: 'worker-1', task: 'i2.t1', title: 'Refuse empty names', attempt: 2, stage: 'team-exec', status: 'running', elapsedMs: 4200, lastLine: 'compiling' }],
  attempts: [
    { worker: 'worker-1', task: 'i2.t1', title: 'Refuse empty names', attempt: 1, stage: 'team-exec', status: 'failed' },
    { worker: 'worker-1', task: 'i2.t1', title: 'Refuse empty names', attempt: 2, stage: 'team-exec', status: 'running' },
    { task: 'i2.t2', title: 'Test them', attempt: 1, stage: 'team-exec', status: 'running' },
  ],
  attention: ['stale approval: team-prd prd.md (changed)'],
  ended: false,
};

describe('frame', () => {
  it('shows the tasks done, the ralph iteration, the fix loop, cost, each lane with its title and what needs attention', () => {
    expect(renderFrame(MODEL, 120)).toEqual([
      'teamline r1 · ralph · running · 1m15s',
      'stage team-exec · 1/3 tasks done · fix loop 1 of 3 · ralph iteration 2 of 10 · $0.5000 · tokens 1200 in / 300 out',
      'task refuse empty names',
      '',
      '  worker-1  i2.t1 a2  Refuse empty names  running        4.2s  compiling',
      '',
      'needs attention:',
      '  stale approval: team-prd prd.md (changed)',
      'q quits (the run goes on)',
    ]);
  });

  it('says in place of the footer that nothing drives the run, and never that the run goes on', () => {
    const frame = renderFrame({ ...MODEL, undriven: 'nothing drives this run: `team resume --run r1` continues it' }, 120);
    expect(frame.at(-1)).toBe('nothing drives this run: `team resume --run r1` continues it');
    expect(frame.join('\n')).not.toContain('the run goes on');
  });

  it('cuts a long title to its column', () => {
    const frame = renderFrame({ ...MODEL, lanes: [{ ...MODEL.lanes[0]!, title: 'a title far longer than the column it is given' }] }, 120);
    expect(frame).toContain('  worker-1  i2.t1 a2  a title far longer than the…  running        4.2s  compiling');
  });

  it('cuts every line to the terminal width', () => {
    for (const line of renderFrame(MODEL, 60)) expect(line.length).toBeLessThanOrEqual(60);
  });

  it('gives plain facts of every attempt that change only when the run does', () => {
    expect(plainFacts(MODEL)).toEqual([
      'stage team-exec · fix loop 1 of 3 · ralph iteration 2 of 10',
      'worker-1 i2.t1 a1 team-exec failed · Refuse empty names',
      'worker-1 i2.t1 a2 team-exec running · Refuse empty names',
      'i2.t2 a1 team-exec running · Test them',
      '1/3 tasks done',
      'needs attention: stale approval: team-prd prd.md (changed)',
    ]);
    expect(plainFacts({ ...MODEL, elapsedMs: 99_000, lanes: [{ ...MODEL.lanes[0]!, elapsedMs: 9000, lastLine: 'linking' }] })).toEqual(plainFacts(MODEL));
  });

  it('reads the last non-empty line of a long output, without control characters', () => {
    const file = join(dir, 'output.log');
    writeFileSync(file, `${'noise line\n'.repeat(200_000)}\u001b[32mall tests pass\u001b[0m\u0007\n\n`);
    expect(lastLine(file)).toBe('all tests pass');
    expect(lastLine(join(dir, 'missing.log'))).toBe('');
  });
});

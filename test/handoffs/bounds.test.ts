import { describe, expect, it } from 'vitest';
import type { HandoffInput } from '../../machines/types.js';
import { renderHandoff } from '../../handoffs/render.js';
import { checkHandoffShape } from '../../handoffs/read.js';
import * as fixtures from './scenarios.js';

const LONG = `Error: validation failed\n${'    at handler (src/routes/users.ts:42:13)\n'.repeat(40)}done`;

// Fifty tasks in a chain (fix tasks of `loop` when loop > 0), with long multi-line evidence; half failed.
function makeBigContext(loop = 0) {
  const tasks = Array.from({ length: 50 }, (_, i) =>
    fixtures.makeTask(
      { id: `task-${String(i + 1).padStart(2, '0')}`, title: `Step ${i + 1} of the migration`, description: 'x', blockedBy: i > 0 ? [`task-${String(i).padStart(2, '0')}`] : [] },
      { kind: loop > 0 ? 'fix' : 'exec', pass: loop, worker: `worker-${(i % 20) + 1}`, status: i % 2 === 0 ? 'completed' : 'failed', attempt: 2, failures: i % 2 === 0 ? 1 : 2, evidence: LONG, artifacts: [`src/step-${i}.ts`, `test/step-${i}.test.ts`] },
    ),
  );
  const defects = Array.from({ length: 30 }, (_, i) => ({ id: `d-${i}`, description: LONG, task: `task-${String(i + 1).padStart(2, '0')}` }));
  const handoffs = Array.from({ length: 40 }, (_, i) => ({ stage: 'team-exec' as const, path: `.team/runs/r/handoffs/${String(i + 1).padStart(2, '0')}-team-exec.md` }));
  const workerFailures = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`worker-${i + 1}`, 2]));
  const base = fixtures.makeContext({ workers: 20, mode: 'ralph', iteration: 3, loop, handoffs, defects, workerFailures, reviewReasons: [LONG, LONG, LONG] });
  const gateResults = Array.from({ length: 12 }, (_, i) => ({ command: `npm run check-${i}`, exitCode: i, timedOut: i === 11, durationMs: 1000 * i, output: LONG }));
  const iterations = [{ iteration: 2, loops: 3, outcome: 'verify failed with fix loops spent', defects, reviewReasons: [LONG] }];
  return fixtures.withTasks({ ...base, gateResults, iterations, verdict: 'fail', stageAttempt: { id: 'verify-3', stage: 'team-verify', role: 'verifier', attempt: 1, failures: 0, status: 'completed', evidence: LONG } }, tasks);
}

const STAGES: Array<[HandoffInput['stage'], string]> = [
  ['team-plan', 'team-exec'],
  ['team-prd', 'team-exec'],
  ['team-exec', 'team-verify'],
  ['team-verify', 'team-fix'],
  ['team-fix', 'team-exec'],
  ['ralph-review', 'team-plan (iteration 4)'],
  ['team-cancel', 'end (cancelled)'],
];

describe('handoffs/render bounds', () => {
  it('stays within 20 lines with 50 tasks, 30 defects, 40 handoffs and long evidence', () => {
    for (const context of [makeBigContext(0), makeBigContext(2)]) {
      for (const [stage, next] of STAGES) {
        const text = renderHandoff({ stage, next, index: 41, context: { ...context, endingStage: 'team-exec' } });
        expect(checkHandoffShape(text), `${stage}:\n${text}`).toBeUndefined();
        expect(text.trimEnd().split('\n').length).toBeLessThanOrEqual(20);
      }
    }
  });

  it('summarises long lists with "and N more" naming what was left out', () => {
    const text = renderHandoff({ stage: 'team-plan', next: 'team-exec', index: 41, context: makeBigContext() });
    expect(text).toMatch(/\n {2}- and 4\d more: task-\d\d, task-\d\d/);
  });

  it('keeps every line single and cuts long evidence to about 160 characters', () => {
    const text = renderHandoff({ stage: 'team-exec', next: 'team-verify', index: 41, context: makeBigContext() });
    for (const line of text.trimEnd().split('\n')) {
      expect(line.length).toBeLessThanOrEqual(250);
      expect(line).not.toMatch(/\s{3,}at handler/);
    }
    expect(text).toContain('Error: validation failed at handler (src/routes/users.ts:42:13)');
    expect(text).toContain('…');
  });

  it('reaches 10 lines with true facts about the run when little happened', () => {
    const only = fixtures.makeTask({ id: 'only', title: 'Do it', description: 'x', acceptance: ['it is done'] });
    const context = fixtures.withTasks(fixtures.makeContext({ gates: [] }), [only]);
    const text = renderHandoff(fixtures.makeInput('team-plan', 'team-exec', context));
    expect(checkHandoffShape(text)).toBeUndefined();
    expect(text.trimEnd().split('\n')).toHaveLength(10);
    expect(text).toContain('run task: "add input validation to the API"');
    expect(text).not.toMatch(/\.\.\.|TODO|TBD/);
  });

  it('renders the same bytes for the same input every time', () => {
    const inputs = [
      fixtures.makeInput('team-verify', 'team-fix', fixtures.makeVerifyFailedContext()),
      { stage: 'team-exec' as const, next: 'team-verify', index: 41, context: makeBigContext() },
      fixtures.makeInput('team-cancel', 'end (cancelled)', fixtures.makeCancelContext()),
    ];
    for (const input of inputs) {
      const copy = JSON.parse(JSON.stringify(input)) as HandoffInput;
      expect(Buffer.from(renderHandoff(copy))).toEqual(Buffer.from(renderHandoff(input)));
    }
  });

  it('ends the text with exactly one newline', () => {
    const text = renderHandoff(fixtures.makeInput('team-exec', 'team-verify', fixtures.makeExecDoneContext()));
    expect(text.endsWith('\n')).toBe(true);
    expect(text.endsWith('\n\n')).toBe(false);
  });
});

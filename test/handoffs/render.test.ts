import { describe, expect, it } from 'vitest';
import { renderHandoff } from '../../handoffs/render.js';
import { checkHandoffShape } from '../../handoffs/read.js';
import * as fixtures from './scenarios.js';

// The text of one bullet: its headline line and its detail lines.
function bulletOf(text: string, label: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`- **${label}**: `));
  const end = lines.findIndex((l, i) => i > start && l.startsWith('- '));
  return lines.slice(start, end === -1 ? undefined : end).join('\n');
}

describe('handoffs/render', () => {
  it('writes the plan handoff with the task graph, assignments, risks and waves', () => {
    const text = renderHandoff(fixtures.makeInput('team-plan', 'team-prd', fixtures.makePlannedContext()));
    expect(checkHandoffShape(text)).toBeUndefined();
    expect(text.split('\n')[0]).toBe('## Handoff: team-plan → team-prd');
    const decided = bulletOf(text, 'Decided');
    expect(decided).toContain('4 tasks in iteration 1');
    expect(decided).toContain('needsPrd: yes');
    expect(decided).toContain('middleware "Validation middleware" → worker-2; after schema');
    expect(decided).toContain('docs "Document validation errors" → worker-1 as writer; after middleware, errors');
    expect(decided).toContain('planner: Split the work by layer: schemas first, then middleware.');
    expect(bulletOf(text, 'Risks')).toContain('schema → middleware → docs');
    expect(bulletOf(text, 'Risks')).toContain('no acceptance criteria: errors, docs');
    expect(bulletOf(text, 'Remaining')).toContain('wave 2: middleware, errors');
  });

  it('lists under Risks only what is a risk: a plan of independent tasks with criteria has none', () => {
    const context = fixtures.withTasks(fixtures.makeContext(), [
      fixtures.makeTask({ id: 'a', title: 'A', description: 'a', acceptance: ['a works'] }),
      fixtures.makeTask({ id: 'b', title: 'B', description: 'b', acceptance: ['b works'] }),
    ]);
    const text = renderHandoff(fixtures.makeInput('team-plan', 'team-exec', context));
    expect(checkHandoffShape(text)).toBeUndefined();
    const risks = bulletOf(text, 'Risks');
    expect(risks).toContain('none in the task graph');
    expect(risks).not.toContain('every task has acceptance criteria');
    expect(risks).not.toContain('no dependency chain');
  });

  it('names the previous iteration’s failed approach when ralph plans again', () => {
    const text = renderHandoff(fixtures.makeInput('team-plan', 'team-exec', fixtures.makeSecondIterationContext()));
    expect(checkHandoffShape(text)).toBeUndefined();
    const rejected = bulletOf(text, 'Rejected');
    expect(rejected).toContain("iteration 1's approach: verify failed with fix loops spent after 3 fix loops");
    expect(rejected).toContain('gate-1: `npm test` exited 1: 3 failing tests');
    expect(bulletOf(text, 'Files')).toContain('handoffs/01-team-plan.md');
    expect(bulletOf(text, 'Files')).toContain('6 handoffs so far');
  });

  it('writes the prd handoff with criteria per task and the tasks still without them', () => {
    const planned = fixtures.makePlannedContext();
    const errors = planned.tasks['errors']!;
    const context = { ...planned, stage: 'team-prd' as const, tasks: { ...planned.tasks, errors: { ...errors, def: { ...errors.def, acceptance: ['errors have code, message and path', 'no stack traces'] } } } };
    const text = renderHandoff(fixtures.makeInput('team-prd', 'team-exec', context));
    expect(checkHandoffShape(text)).toBeUndefined();
    expect(bulletOf(text, 'Decided')).toContain('acceptance criteria for 3 of 4 tasks (4 criteria in all)');
    expect(bulletOf(text, 'Decided')).toContain('errors: 2 criteria, e.g. "errors have code, message and path"');
    expect(bulletOf(text, 'Rejected')).toContain('docs "Document validation errors": no criteria');
  });

  it('writes the exec handoff with evidence of completed tasks and why others failed', () => {
    const text = renderHandoff(fixtures.makeInput('team-exec', 'team-verify', fixtures.makeExecDoneContext()));
    expect(checkHandoffShape(text)).toBeUndefined();
    expect(bulletOf(text, 'Decided')).toContain('2 of 4 tasks completed');
    expect(bulletOf(text, 'Decided')).toContain('schema (worker-1): Added src/schemas/user.ts and order.ts; 12 unit tests pass');
    expect(bulletOf(text, 'Rejected')).toContain('errors (worker-3, 2 of 2 attempts failed): TypeError: cannot read properties of undefined (reading "issues") at format (src/sys/errors.ts:14)');
    expect(bulletOf(text, 'Rejected')).toContain('docs never ran: blocked by failed task errors');
    expect(bulletOf(text, 'Risks')).toContain('worker-3: 2 failed attempts, gets no more work');
    expect(bulletOf(text, 'Risks')).toContain('completed only after retries: middleware (1)');
    expect(bulletOf(text, 'Files')).toContain('src/schemas/user.ts (schema, middleware)');
    expect(bulletOf(text, 'Remaining')).toContain('team-verify: gate commands npm test, npm run lint');
  });

  it('writes the verify handoff with the verdict, each gate’s exit code and the defects', () => {
    const text = renderHandoff(fixtures.makeInput('team-verify', 'team-fix', fixtures.makeVerifyFailedContext()));
    expect(checkHandoffShape(text)).toBeUndefined();
    expect(text.split('\n')[0]).toBe('## Handoff: team-verify → team-fix');
    expect(bulletOf(text, 'Decided')).toMatch(/verdict fail, \d+ defects? \(1 of 2 gates exited 0\)/);
    expect(bulletOf(text, 'Decided')).toContain('`npm test` → exit 1 (4.2 s)');
    expect(bulletOf(text, 'Decided')).toContain('`npm run lint` → exit 0');
    expect(bulletOf(text, 'Rejected')).toContain('field-path (task middleware): a 400 response does not name the invalid field');
    expect(bulletOf(text, 'Remaining')).toContain('fix loop 1 of 3');
  });

  it('says the run ends when verify fails with every fix loop spent', () => {
    const context = { ...fixtures.makeVerifyFailedContext(), loop: 3 };
    const text = renderHandoff(fixtures.makeInput('team-verify', 'end (failed)', context));
    expect(checkHandoffShape(text)).toBeUndefined();
    expect(bulletOf(text, 'Remaining')).toContain('the run ends failed (fix loops 3 of 3');
    expect(bulletOf(text, 'Rejected')).toContain('gate-1');
  });

  it('writes the fix handoff with one fix task per defect and the loop count', () => {
    const text = renderHandoff(fixtures.makeInput('team-fix', 'team-exec', fixtures.makeFixContext()));
    expect(checkHandoffShape(text)).toBeUndefined();
    expect(bulletOf(text, 'Decided')).toContain('fix loop 1 of 3: 2 fix tasks from 2 defects');
    expect(bulletOf(text, 'Decided')).toContain('fix-1-field-path → worker-2: a 400 response does not name the invalid field');
    expect(bulletOf(text, 'Files')).toContain('src/middleware/validate.ts (middleware)');
    expect(bulletOf(text, 'Remaining')).toContain('team-verify checks fix loop 1 of 3');
  });

  it('finds the files of a defect’s task when the verifier leaves out the iteration prefix', () => {
    const fix = fixtures.makeFixContext();
    const middleware = { ...fix.tasks['middleware']!, id: 'i2.middleware' };
    const context = { ...fix, iteration: 2, tasks: { ...fix.tasks, 'i2.middleware': middleware } as Record<string, typeof middleware> };
    delete context.tasks['middleware'];
    const text = renderHandoff(fixtures.makeInput('team-fix', 'team-exec', context));
    expect(bulletOf(text, 'Files')).toContain('src/middleware/validate.ts (i2.middleware)');
  });

  it('writes the review handoff with the architect’s reasons to reject', () => {
    const context = fixtures.makeReviewContext(['Validation is duplicated per route', 'No test for nested objects']);
    const text = renderHandoff(fixtures.makeInput('ralph-review', 'team-fix', context));
    expect(checkHandoffShape(text)).toBeUndefined();
    expect(bulletOf(text, 'Decided')).toContain('verdict reject in iteration 2 of 10');
    expect(bulletOf(text, 'Rejected')).toContain('review-2: No test for nested objects');
    expect(bulletOf(text, 'Remaining')).toContain('fix loop 2 of 3');
  });

  it('writes the review handoff of an approval ending the run', () => {
    const text = renderHandoff(fixtures.makeInput('ralph-review', 'end (completed)', fixtures.makeReviewContext([])));
    expect(checkHandoffShape(text)).toBeUndefined();
    expect(bulletOf(text, 'Decided')).toContain('verdict approve in iteration 2 of 10');
    expect(bulletOf(text, 'Remaining')).toContain('the run ends completed');
  });

  it('writes the failing handoff with the reason and the work left undone', () => {
    const text = renderHandoff(fixtures.makeInput('team-verify', 'end (failed)', fixtures.makeFailingContext()));
    expect(checkHandoffShape(text)).toBeUndefined();
    expect(text.split('\n')[0]).toBe('## Handoff: team-verify → end (failed)');
    expect(bulletOf(text, 'Decided')).toContain('stop the run: team-verify failed after 2 of 2 attempts');
    expect(bulletOf(text, 'Rejected')).toContain('verify-1#a2: no valid result: the agent exited 1 before writing result.json');
    expect(bulletOf(text, 'Risks')).toContain('team-verify (verifier) was running');
    expect(bulletOf(text, 'Remaining')).toContain('errors "Error format": failed');
  });

  it('titles a cancel handoff with the cancelled stage and lists the stopped attempts', () => {
    const text = renderHandoff(fixtures.makeInput('team-cancel', 'end (cancelled)', fixtures.makeCancelContext()));
    expect(checkHandoffShape(text)).toBeUndefined();
    expect(text.split('\n')[0]).toBe('## Handoff: team-exec → end (cancelled)');
    expect(bulletOf(text, 'Decided')).toContain('cancel the run during team-exec (forced, no grace period): cancelled by request');
    expect(bulletOf(text, 'Rejected')).toContain('middleware#a1 (worker-2) stopped before it finished');
    expect(bulletOf(text, 'Remaining')).toContain('3 of 4 tasks not completed');
    expect(bulletOf(text, 'Remaining')).toContain('errors "Error format": pending');
  });

  it('says no task was planned when the planner failed every attempt', () => {
    const evidence = 'result.json is not valid JSON';
    const context = fixtures.makeContext({ endingStage: 'team-plan', reason: `team-plan failed: ${evidence}`, stageAttempt: { id: 'plan', stage: 'team-plan', role: 'planner', attempt: 2, failures: 2, status: 'failed', evidence } });
    const text = renderHandoff(fixtures.makeInput('team-plan', 'end (failed)', context));
    expect(checkHandoffShape(text)).toBeUndefined();
    expect(bulletOf(text, 'Remaining')).toContain('run task left undone: "add input validation to the API"');
    expect(bulletOf(text, 'Rejected')).toContain(evidence);
  });
});

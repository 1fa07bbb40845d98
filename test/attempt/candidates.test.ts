// What a selector's job says of the candidates (issue 38) when it is made in the step that commits its
// task_started: on team workers that step may also hold the last candidate's gates and end, which the
// fold joins only once the step is durable. The selector was told "gates not run" of a candidate
// whose gates had failed, picked it, and its pick was refused: an attempt lost.
import { describe, expect, it } from 'vitest';
import { candidateFacts, describeCandidates, withPendingFacts } from '../../src/attempt/prepare/candidates.js';
import type { TaskView } from '../../src/log/fold/types.js';
import type { TeamEvent } from '../../src/log/schema.js';

const branch = (id: string) => `team/r--${id}`;
// c1 ended and was gated before the step; c2 is still running as the fold knows it.
const tasks = new Map<string, TaskView>([
  ['t1--c1', { id: 't1--c1', attempts: [{ attempt: 1, status: 'completed', agent: 'claude', evidence: 'c1 done', artifacts: ['a.txt'] }], gates: [{ command: 'npm test', exitCode: 1, timedOut: false }] } as unknown as TaskView],
  ['t1--c2', { id: 't1--c2', attempts: [{ attempt: 1, status: 'running', agent: 'codex' }] } as unknown as TaskView],
]);
const at = '2026-12-06T12:00:00.000Z';
const pending = [
  { event: 'candidate_gated', at, run_id: 'r', task_id: 't1--c2', attempt: 1, candidate_of: 't1', gates: [{ command: 'npm test', exitCode: 0, timedOut: false, durationMs: 5, output: '' }] },
  { event: 'task_finished', at, run_id: 'r', task_id: 't1--c2', stage: 'team-exec', agent: 'codex', attempt: 1, session: '', parent_session: '', inputs: [], artifacts: ['a.txt'], evidence: 'c2 done', next: '', status: 'completed' },
  { event: 'task_started', at, run_id: 'r', task_id: 't1', stage: 'team-verify', agent: 'claude', attempt: 1, session: '', parent_session: '', inputs: [] },
] as unknown as TeamEvent[];

describe("the selector's candidates", () => {
  it('take the gates and the end a step not yet durable holds', () => {
    const facts = withPendingFacts(candidateFacts(tasks, ['t1--c1', 't1--c2'], branch), pending);
    expect(facts.map((f) => [f.id, f.status, f.gates?.map((g) => g.exitCode), f.evidence])).toEqual([
      ['t1--c1', 'completed', [1], 'c1 done'],
      ['t1--c2', 'completed', [0], 'c2 done'],
    ]);
    const lines = describeCandidates(facts).split('\n');
    expect(lines[0]).toContain('t1--c1 (claude): completed; gates failed: `npm test` exited 1;');
    expect(lines[1]).toContain('t1--c2 (codex): completed; gates passed (1 of 1);');
  });

  it('are the fold\'s alone when the step holds nothing of them', () => {
    const facts = candidateFacts(tasks, ['t1--c1', 't1--c2'], branch);
    expect(withPendingFacts(facts, [pending[2]!])).toEqual(facts);
  });
});

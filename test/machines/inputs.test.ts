// The machine's inputs come from the log through one table (machines/inputs.ts): each carries the
// fields its row names, an optional one only when the log has it, and the event's time in ms where
// the row says so; records and facts the machine ignores are no input.
import { describe, expect, it } from 'vitest';
import { MACHINE_INPUTS, toMachineEvent } from '../../machines/inputs.js';
import { EVENT_SCHEMAS, type TeamEvent } from '../../src/log/schema.js';
import { parseLogTime } from '../../src/log/time.js';

const at = '20261206T101500123456Z';
const base = { at, run_id: 'r1' };

describe('machines/inputs', () => {
  it('names only fields the log event has, and a machine type once each', () => {
    for (const [name, spec] of Object.entries(MACHINE_INPUTS)) {
      const shape = (EVENT_SCHEMAS[name as keyof typeof EVENT_SCHEMAS] as unknown as { shape: Record<string, unknown> }).shape;
      for (const field of spec.fields) expect(shape, `${name}.${field}`).toHaveProperty(field);
    }
    const types = Object.values(MACHINE_INPUTS).map((spec) => spec.type);
    expect(new Set(types).size).toBe(types.length);
  });

  it('carries the fields of its row, optional ones only when present', () => {
    const finished = { event: 'task_finished', ...base, task_id: 't1', attempt: 2, stage: 'team-exec', agent: 'sim', status: 'failed', session: '', parent_session: '', inputs: [], artifacts: ['a.ts'], evidence: 'boom', next: '' } as unknown as TeamEvent;
    expect(toMachineEvent(finished)).toEqual({ type: 'task.finished', task_id: 't1', attempt: 2, status: 'failed', evidence: 'boom', artifacts: ['a.ts'] });
    expect(toMachineEvent({ ...finished, retryable: false } as TeamEvent)).toMatchObject({ retryable: false });
    expect(toMachineEvent({ event: 'team_scaled', ...base, workers: 4 } as unknown as TeamEvent)).toEqual({ type: 'workers.scaled', workers: 4 });
    expect(toMachineEvent({ event: 'budget_raised', ...base } as unknown as TeamEvent)).toEqual({ type: 'budget.raised' });
  });

  it("gives a back-off's inputs the event's time in ms, the same on every replay", () => {
    const retrying = { event: 'attempt_retrying', ...base, task_id: 't1', attempt: 1, agent: 'claude', reason: '429', jitter: 0.25, retry_after_ms: 4000 } as unknown as TeamEvent;
    expect(toMachineEvent(retrying)).toEqual({ type: 'attempt.retrying', agent: 'claude', jitter: 0.25, retry_after_ms: 4000, at: parseLogTime(at) });
  });

  it('is no input for a record the machine writes, or a fact it ignores', () => {
    expect(toMachineEvent({ event: 'stage_entered', ...base, stage: 'team-exec' } as unknown as TeamEvent)).toBeUndefined();
    expect(toMachineEvent({ event: 'attempt_stalled', ...base, task_id: 't1', attempt: 1, silent_ms: 5 } as unknown as TeamEvent)).toBeUndefined();
  });
});

// The opchain validator reports OPCHAIN.md's errors and warnings, each naming its field.
import { describe, expect, it } from 'vitest';
import { validateCheckpoint, validateCheckpointText } from '../../src/checkpoint/validate.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');

function valid(): Record<string, any> {
  return {
    protocol_version: '1.1',
    skill: 'team',
    project: 'demo',
    project_dir: '/tmp',
    created_at: '2026-11-30T10:00:00Z',
    updated_at: '2026-11-30T11:00:00.123Z',
    phase: 'team-exec',
    step: 't1',
    status: 'in_progress',
    progress_summary: 'working',
    progress_table: [{ id: 't1', label: 'Schema', status: 'in_progress' }],
    context_primer: { key_decisions: [], generated_files: [], user_preferences: [] },
    next_actions: ['wait'],
  };
}

function check(change: (doc: Record<string, any>) => void) {
  const doc = valid();
  change(doc);
  return validateCheckpoint(doc, 'team.checkpoint.json', NOW);
}

describe('validate', () => {
  it('passes a complete checkpoint with no error and no warning', () => {
    expect(check(() => {})).toEqual({ errors: [], warnings: [] });
  });

  it('fails invalid JSON', () => {
    expect(validateCheckpointText('{"skill":', 'team.checkpoint.json').errors[0]).toMatch(/^invalid JSON/);
  });

  it('fails each required field that is missing, null or empty', () => {
    expect(check((d) => delete d.phase).errors).toEqual(['phase: required']);
    expect(check((d) => (d.step = null)).errors).toEqual(['step: required']);
    expect(check((d) => (d.progress_summary = '')).errors).toEqual(['progress_summary: required']);
  });

  it('fails a protocol version, status or row status outside the lists', () => {
    expect(check((d) => (d.protocol_version = '2.0')).errors).toEqual(['protocol_version: "2.0" is not 1.0 or 1.1']);
    expect(check((d) => (d.status = 'done')).errors[0]).toMatch(/^status: "done" is not one of/);
    expect(check((d) => (d.progress_table[0].status = 'done')).errors[0]).toMatch(/^progress_table\[0\]\.status/);
    expect(check((d) => delete d.progress_table[0].label).errors).toEqual(['progress_table[0].label: required']);
  });

  it('fails a skill that differs from the file name, and a relative project_dir', () => {
    expect(validateCheckpoint(valid(), 'other.checkpoint.json', NOW).errors).toEqual(['skill: "team" differs from the file\'s "other"']);
    expect(check((d) => (d.project_dir = 'rel/dir')).errors).toEqual(['project_dir: must be an absolute path']);
  });

  it('fails times that are not ISO UTC or go backwards, and warns of a clock far ahead', () => {
    expect(check((d) => (d.created_at = '2026-11-30 10:00')).errors).toEqual(['created_at: "2026-11-30 10:00" is not ISO-8601 UTC']);
    expect(check((d) => (d.updated_at = '2026-11-30T09:00:00Z')).errors).toEqual(['updated_at: earlier than created_at']);
    expect(check((d) => (d.updated_at = '2026-12-02T09:00:00Z')).warnings).toEqual(['updated_at: more than 24 h in the future']);
  });

  it('fails empty next actions while in progress only', () => {
    expect(check((d) => (d.next_actions = [])).errors).toEqual(['next_actions: missing or empty while in_progress']);
    expect(check((d) => delete d.next_actions).errors).toEqual(['next_actions: missing or empty while in_progress']);
    expect(check((d) => Object.assign(d, { status: 'complete', next_actions: [] })).errors).toEqual([]);
    expect(check((d) => (d.next_actions = [{ text: 'x', done_when: 3 }])).errors).toEqual(['next_actions[0].done_when: must be a shell command string']);
  });

  it('warns of a missing table or primer while in progress, a long summary and many decisions', () => {
    expect(check((d) => delete d.progress_table).warnings).toEqual(['progress_table: absent while in_progress']);
    expect(check((d) => delete d.context_primer).warnings).toEqual(['context_primer: absent while in_progress']);
    expect(check((d) => (d.progress_summary = 'x'.repeat(1201))).warnings).toEqual(['progress_summary: 1201 characters, above 1200']);
    expect(check((d) => (d.context_primer.key_decisions = Array(21).fill('d'))).warnings[0]).toMatch(/key_decisions: 21 items/);
    expect(check((d) => (d.context_primer.generated_files = ['no/such/file'])).warnings).toEqual(['context_primer.generated_files: no/such/file does not exist']);
  });

  it('checks blockers: ids, needs and what they block', () => {
    expect(check((d) => (d.blockers = [{ id: 'b1' }])).errors).toEqual(['blockers[0].description: required']);
    expect(check((d) => (d.blockers = [{ id: 'b1', description: 'x', needs: 'coffee' }])).errors[0]).toMatch(/^blockers\[0\]\.needs: "coffee"/);
    expect(check((d) => (d.blockers = [{ id: 'b1', description: 'x', blocking: 't9', needs: 'user_decision' }])).warnings).toEqual(['blockers[0].blocking: "t9" names no progress_table id']);
  });

  it('checks cost, eval scores, telemetry and recently done', () => {
    expect(check((d) => (d.cost = { total_usd: -1 })).errors).toEqual(['cost.total_usd: must be a non-negative finite number']);
    expect(check((d) => (d.cost = { by_phase: { plan: 'x' } })).errors).toEqual(['cost.by_phase.plan: must be a non-negative finite number']);
    expect(check((d) => (d.cost = { total_usd: 2, budget_usd: 1 })).warnings).toEqual(['cost: total_usd above budget_usd']);
    expect(check((d) => (d.cost = { total_usd: 2, budget_usd: 0 })).warnings).toEqual([]);
    expect(check((d) => (d.eval_scores = [{ rubric: 'r', score: 6, max: 5 }])).errors).toEqual(['eval_scores[0]: score 6 above max 5']);
    expect(check((d) => (d.telemetry_handle = '')).errors).toEqual(['telemetry_handle: a non-empty string or an object']);
    expect(check((d) => (d.recently_done = Array(11).fill({ at: '2026-11-30T10:00:00Z', action: 'a' }))).errors).toEqual(['recently_done: 11 items, at most 10']);
    expect(check((d) => (d.recently_done = [{ at: '2026-11-30T10:00:00Z', action: 'a' }, { at: '2026-11-30T11:00:00Z', action: 'b' }])).errors).toEqual(['recently_done: not newest first']);
  });

  it('warns of a file above 32 KB', () => {
    const text = JSON.stringify({ ...valid(), skill_state: { pad: 'x'.repeat(33 * 1024) } });
    expect(validateCheckpointText(text, 'team.checkpoint.json', NOW).warnings[0]).toMatch(/above 32 KB$/);
  });
});

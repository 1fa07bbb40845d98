import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/log/guards.js';
import { guardAgentText, guardCliText } from '../../src/domain/result-guard.js';

describe('runtime/result-guard', () => {
  it('changes nothing and notes nothing in a plain result', () => {
    const result = { status: 'completed', summary: 'ok', artifacts: ['a.ts'], evidence: 'tests pass', next: '' };
    expect(guardAgentText(result)).toBe('');
    expect(result).toEqual({ status: 'completed', summary: 'ok', artifacts: ['a.ts'], evidence: 'tests pass', next: '' });
  });

  it('cuts each kind of field to its own bound', () => {
    const long = 'x'.repeat(10_000);
    const result = { summary: long, tasks: [{ id: long, title: long, description: long, blockedBy: [long], acceptance: [long] }] };
    guardAgentText(result);
    const [task] = result.tasks;
    expect([result.summary.length, task!.id.length, task!.title.length, task!.description.length, task!.blockedBy[0]!.length, task!.acceptance[0]!.length]).toEqual([
      LIMITS.text,
      LIMITS.agentId,
      LIMITS.title,
      LIMITS.text,
      LIMITS.agentId,
      LIMITS.criterion,
    ]);
  });

  it('cuts defects, reasons and acceptance lists to their item bound, saying so', () => {
    const many = Array.from({ length: 80 }, (_, i) => `r${i}`);
    const result = { reasons: many, defects: many.map((id) => ({ id, description: id })), acceptance: { t1: many } };
    const note = guardAgentText(result);
    expect([result.reasons.length, result.defects.length, result.acceptance.t1.length]).toEqual([LIMITS.items, LIMITS.items, LIMITS.items]);
    expect(note).toBe('[teamline cut reasons (80 items), defects (80 items), acceptance.t1 (80 items) to their limits]');
  });

  it('redacts a secret in a PRD task id key, and never names it in the note', () => {
    const result = { acceptance: { 'ghp_abcdefghijklmnopqrstuvwxyz': ['works'] } };
    const note = guardAgentText(result);
    expect(result.acceptance).toEqual({ '[redacted]': ['works'] });
    expect(note).toBe('[teamline redacted what looked like secrets in acceptance.[redacted] (a GitHub token (ghp_...))]');
  });

  it('keeps a key named __proto__ as plain data', () => {
    const result = JSON.parse('{"acceptance": {"__proto__": ["x"]}}') as { acceptance: Record<string, string[]> };
    guardAgentText(result);
    expect(Object.getPrototypeOf(result.acceptance)).toBe(Object.prototype);
    expect(Object.keys(result.acceptance)).toEqual(['__proto__']);
  });

  it('leaves artifacts to the path checks, which refuse rather than redact', () => {
    const result = { artifacts: ['ghp_abcdefghijklmnopqrstuvwxyz.txt'] };
    expect(guardAgentText(result)).toBe('');
    expect(result.artifacts).toEqual(['ghp_abcdefghijklmnopqrstuvwxyz.txt']);
  });

  it('redacts what a CLI printed, notes it once, and finds nothing to redact in its own result', () => {
    const guarded = guardCliText('login failed: password=hunter22 for sk-TESTONLYabcdefghijklmnop');
    expect(guarded).toBe('login failed: [redacted] for [redacted] [teamline redacted what looked like secrets in what the agent CLI printed: an API key, a password or secret assignment]');
    expect(guardCliText(guarded)).toBe(guarded);
    expect(guardCliText('exited 1: no such file')).toBe('exited 1: no such file');
  });
});

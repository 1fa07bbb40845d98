import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { readHandoffs } from '../../handoffs/read.js';
import { handoffFileName, writeHandoff } from '../../handoffs/write.js';
import * as fixtures from './scenarios.js';

const made: string[] = [];
function makeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-handoffs-'));
  made.push(dir);
  return join(dir, 'handoffs');
}
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('handoffs/write', () => {
  it('names files with a two-digit index and the stage', () => {
    expect(handoffFileName(1, 'team-plan')).toBe('01-team-plan.md');
    expect(handoffFileName(12, 'team-verify')).toBe('12-team-verify.md');
    expect(handoffFileName(3, 'team-cancel')).toBe('03-team-cancel.md');
    expect(handoffFileName(104, 'ralph-review')).toBe('104-ralph-review.md');
  });

  it('refuses an index or stage that would make a bad file name', () => {
    expect(() => handoffFileName(0, 'team-plan')).toThrow(/positive integer/);
    expect(() => handoffFileName(1, '../team-plan')).toThrow(/stage name/);
  });

  it('writes the rendered text atomically and leaves no temporary file', () => {
    const dir = makeDir();
    const input = fixtures.makeInput('team-verify', 'team-fix', fixtures.makeVerifyFailedContext());
    const result = writeHandoff(dir, input, { fsync: true });
    expect(result.file).toBe(join(dir, '04-team-verify.md'));
    expect(readFileSync(result.file, 'utf8')).toBe(result.text);
    expect(result.sha256).toBe(createHash('sha256').update(readFileSync(result.file)).digest('hex'));
    expect(readdirSync(dir)).toEqual(['04-team-verify.md']);
  });

  it('names a cancel handoff NN-team-cancel.md', () => {
    const dir = makeDir();
    const result = writeHandoff(dir, fixtures.makeInput('team-cancel', 'end (cancelled)', fixtures.makeCancelContext()), { fsync: false });
    expect(result.file).toBe(join(dir, '02-team-cancel.md'));
  });

  it('rewrites the same handoff after a crash with identical bytes', () => {
    const dir = makeDir();
    const input = fixtures.makeInput('team-exec', 'team-verify', fixtures.makeExecDoneContext());
    const first = writeHandoff(dir, input, { fsync: false });
    const bytes = readFileSync(first.file);
    const again = writeHandoff(dir, JSON.parse(JSON.stringify(input)), { fsync: false });
    expect(again.sha256).toBe(first.sha256);
    expect(readFileSync(again.file)).toEqual(bytes);
    expect(readdirSync(dir)).toEqual(['03-team-exec.md']);
  });
});

describe('handoffs/read', () => {
  it('reads handoffs in index order and ignores other files', () => {
    const dir = makeDir();
    const plan = fixtures.makePlannedContext();
    writeHandoff(dir, { stage: 'team-verify', next: 'team-fix', index: 10, context: fixtures.makeVerifyFailedContext() }, { fsync: false });
    writeHandoff(dir, { stage: 'team-plan', next: 'team-prd', index: 1, context: plan }, { fsync: false });
    writeHandoff(dir, { stage: 'team-exec', next: 'team-verify', index: 2, context: fixtures.makeExecDoneContext() }, { fsync: false });
    writeFileSync(join(dir, 'notes.md'), 'not a handoff');
    writeFileSync(join(dir, '.tmp-abc-03-team-fix.md.tmp'), 'half written');
    mkdirSync(join(dir, '04-team-fix.md'));
    const found = readHandoffs(dir);
    expect(found.map((h) => [h.index, h.stage])).toEqual([[1, 'team-plan'], [2, 'team-exec'], [10, 'team-verify']]);
    expect(found[0]!.file).toBe(join(dir, '01-team-plan.md'));
    expect(found[0]!.text.startsWith('## Handoff: team-plan → team-prd\n')).toBe(true);
  });

  it('reads nothing from a folder that does not exist yet', () => {
    expect(readHandoffs(join(makeDir(), 'missing'))).toEqual([]);
  });
});

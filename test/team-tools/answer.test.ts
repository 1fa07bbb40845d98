// The writer's side of a tool call (src/team-tools/answer.ts, calls.ts) on hostile input: the call file is
// the agent's. The fold is built from records, as the orchestrator's is from its log.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foldOf } from '../../src/log/fold/fold.js';
import type { TeamEvent } from '../../src/log/schema.js';
import { handleCall, type CallSite } from '../../src/team-tools/answer.js';
import { CALLS_DIR, readOpenCalls, writeCall } from '../../src/team-tools/calls.js';
import { RUN_FIELDS } from '../store/records.js';

const RUN = { ...RUN_FIELDS, run_id: 'r1', created_at: '2026-01-01T00:00:00Z' };
const at = (n: number) => `2026-01-01T00:00:0${n}Z`;
const LOG = [
  { event: 'tasks_assigned', tasks: [{ task_id: 'a', worker: 'worker-1', task: { id: 'a', title: 'A' } }, { task_id: 'b', worker: 'worker-2', task: { id: 'b', title: 'B', blockedBy: ['a'] } }] },
  { event: 'task_started', task_id: 'a', stage: 'team-exec', agent: 'sim', attempt: 1, status: 'running', session: '', parent_session: '', inputs: [], artifacts: [], evidence: '', next: '' },
  { event: 'team_reserved', key: 'k1', task_id: 'a', attempt: 1, worker: 'worker-1', files: ['src/x.ts'], held: [] },
  { event: 'team_message', key: 'k2', from: 'human', to: 'b', text: 'use v2' },
  { event: 'team_message', key: 'k3', from: 'human', to: 'worker-1', text: 'not yours' },
  { event: 'team_message', key: 'k4', from: 'worker-1', task_id: 'a', attempt: 1, to: 'worker-2', text: 'yours', read_through: 0 },
].map((e, i) => ({ ...e, at: at(i), run_id: 'r1', file: `f${i}` })) as unknown as Array<TeamEvent & { file: string }>;

describe('src/team-tools/answer', () => {
  let dir: string;
  let site: CallSite;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'teamline-answer-'));
    site = { task: 'b', attempt: 1, worker: 'worker-2', stage: 'team-exec', workDir: dir, attemptDir: dir, resultFile: join(dir, 'result.json') };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const call = (tool: string, args: unknown) => handleCall(foldOf(RUN, LOG), site, { key: 'c-0000000000000001', tool, args, at: at(9) }, 'call:b:a1:c-0000000000000001');

  it('answers with the unread messages, and records how far they were read', () => {
    const done = call('team_progress', { text: 'reading' });
    expect(done.answer).toEqual({ ok: true, answer: { noted: true, unread: [{ from: 'human', text: 'use v2', at: at(3) }, { from: 'worker-1', task: 'a', text: 'yours', at: at(5) }] } });
    expect(done.event).toMatchObject({ event: 'team_progress', key: 'call:b:a1:c-0000000000000001', read_through: 3, worker: 'worker-2' });
    // Read through them, nothing is unread any more.
    const after = handleCall(foldOf(RUN, [...LOG, { ...(done.event as object), at: at(6), run_id: 'r1', file: 'f9' } as TeamEvent & { file: string }]), site, { key: 'c-0000000000000002', tool: 'team_inbox', args: {}, at: at(7) }, 'k-next');
    expect(after.answer).toEqual({ ok: true, answer: {} });
  });

  it('tells who holds a file already reserved by a live attempt', () => {
    expect(call('team_reserve', { files: ['src/x.ts', 'src/y.ts'] }).answer.answer).toMatchObject({ reserved: ['src/x.ts', 'src/y.ts'], alreadyReserved: [{ file: 'src/x.ts', by: 'worker-1', task: 'a' }] });
  });

  it('refuses text with a secret or a control character, a path out of the project, a message to itself, an unknown recipient', () => {
    const refusal = (tool: string, args: unknown) => {
      const handled = call(tool, args);
      expect(handled.event).toBeUndefined();
      return (handled.answer.answer as { error: string }).error;
    };
    expect(refusal('team_progress', { text: 'key sk-abcdefghijklmnopqrstuv' })).toMatch(/text: refused, it looks like an API key/);
    expect(refusal('team_message', { to: 'lead', text: 'bell \u0007' })).toBe('text: refused, it holds a control character');
    expect(refusal('team_reserve', { files: ['../../etc/passwd'] })).toMatch(/^files: /);
    expect(refusal('team_message', { to: 'b', text: 'hi me' })).toBe('to: not to yourself');
    expect(refusal('team_message', { to: 'nobody', text: 'hi' })).toBe('--to: nobody is neither lead, a worker of the run (worker-1, worker-2) nor one of its tasks');
    // A worker the run never had: nobody would read it.
    expect(refusal('team_message', { to: 'worker-9', text: 'hi' })).toBe('--to: worker-9 is neither lead, a worker of the run (worker-1, worker-2) nor one of its tasks');
    expect(refusal('team_progress', { text: 'x', extra: 1 })).toMatch(/^team_progress: .*extra/s);
  });

  it('judges team_done as a result file is judged', () => {
    expect((call('team_done', { summary: 'ok', artifacts: ['/etc/passwd'] }).answer.answer as { error: string }).error).toMatch(/result artifacts/);
    const done = call('team_done', { summary: 'ok' });
    expect(done.event).toMatchObject({ event: 'team_result', status: 'completed' });
    done.after!();
    expect(JSON.parse(readFileSync(site.resultFile, 'utf8'))).toEqual({ status: 'completed', summary: 'ok' });
  });

  it('reads a FIFO, a link or an oversized file in the calls folder as unreadable, at once', () => {
    writeCall(dir, { key: 'c-00000000000000aa', tool: 'team_tasks', args: {}, at: at(1) });
    const calls = join(dir, CALLS_DIR);
    mkdirSync(calls, { recursive: true });
    execFileSync('mkfifo', [join(calls, 'c-00000000000000bb.call.json')]);
    writeFileSync(join(dir, 'elsewhere'), '{}');
    symlinkSync(join(dir, 'elsewhere'), join(calls, 'c-00000000000000cc.call.json'));
    writeFileSync(join(calls, 'c-00000000000000dd.call.json'), 'x'.repeat(1024 * 1024 + 1));
    writeFileSync(join(calls, 'c-00000000000000ee.call.json'), JSON.stringify({ key: 'c-00000000000000ff', tool: 'team_tasks', args: {}, at: at(1) }));
    const open = readOpenCalls(dir);
    expect(open.calls.map((c) => c.key)).toEqual(['c-00000000000000aa']);
    expect(open.unreadable.map((u) => u.name).sort()).toEqual(['bb', 'cc', 'dd', 'ee'].map((k) => `c-00000000000000${k}.call.json`));
  });
});

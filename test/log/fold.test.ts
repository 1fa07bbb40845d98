import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { foldOf, foldRun } from '../../src/log/fold/fold.js';
import { finished, makeRunFiles, started } from '../helpers/runs.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const PROJECT = '/nonexistent-project';
const fold = (events: Array<Record<string, unknown>>) => foldRun(makeRunFiles(events), PROJECT);
const LIMITS = { maxTasks: 50, maxFixLoops: 3, maxTaskAttempts: 2, maxIterations: 10, statusCheckMs: 1, reassignMs: 2, shutdownTimeoutMs: 3 };

describe('checkpoint/view foldRun', () => {
  it('starts from run.json: its stage and status, no tasks', () => {
    const view = fold([]);
    expect(view).toMatchObject({ stage: 'team-plan', status: 'running', tasks: [], uncertain: [], conflicts: [], eventCount: 0 });
  });

  it('lists the tasks of one tasks_assigned as pending; the planned ones count in their iteration, a fix task does not', () => {
    const def = (id: string) => ({ id, title: id, description: 'd' });
    const view = fold([{ event: 'tasks_assigned', tasks: [{ task_id: 't1', worker: 'worker-1', task: def('t1') }, { task_id: 't2', worker: 'worker-2', task: def('t2') }, { task_id: 'fix-1-d1', worker: 'worker-1', task: def('fix-1-d1') }] }]);
    expect(view.tasks.map((t) => [t.id, t.status])).toEqual([['t1', 'pending'], ['t2', 'pending'], ['fix-1-d1', 'pending']]);
    expect(view.iterations.map((it) => it.tasks)).toEqual([['t1', 't2']]);
  });

  it('lists an assigned task that has not started as pending', () => {
    const view = fold([{ event: 'task_assigned', task_id: 't1', worker: 'worker-1' }]);
    expect(view.tasks).toEqual([{ id: 't1', status: 'pending', attempts: [], retries: [] }]);
  });

  it('takes a started attempt with no terminal event as running and uncertain', () => {
    const view = fold([started('t1', 1, { inputs: ['a.md'] })]);
    expect(view.tasks[0]).toMatchObject({ id: 't1', status: 'running', attempts: [{ attempt: 1, status: 'running', uncertain: true, inputs: ['a.md'] }] });
    expect(view.uncertain).toEqual([{ task: 't1', attempt: 1 }]);
  });

  it('takes the terminal event as the end of the attempt', () => {
    const view = fold([started('t1'), finished('t1', 1, 'completed', { artifacts: ['src/a.ts'], evidence: 'tests pass', next: 'ship' })]);
    expect(view.tasks[0]).toMatchObject({
      status: 'completed',
      attempts: [{ attempt: 1, status: 'completed', uncertain: false, artifacts: ['src/a.ts'], evidence: 'tests pass', next: 'ship' }],
    });
    expect(view.tasks[0]!.attempts[0]!.finishedAt).toBeDefined();
    expect(view.uncertain).toEqual([]);
  });

  for (const status of ['failed', 'interrupted', 'awaiting_approval']) {
    it(`takes a ${status} attempt as certain and the task as ${status}`, () => {
      const view = fold([started('t1'), finished('t1', 1, status)]);
      expect(view.tasks[0]).toMatchObject({ status, attempts: [{ status, uncertain: false }] });
    });
  }

  it('keeps attempt 1 in the history when attempt 2 runs after a retry', () => {
    const view = fold([started('t1'), finished('t1', 1, 'failed'), { event: 'task_retry', task_id: 't1', attempt: 2, reason: 'flaky' }, started('t1', 2)]);
    expect(view.tasks[0]).toMatchObject({
      status: 'running',
      attempts: [
        { attempt: 1, status: 'failed' },
        { attempt: 2, status: 'running', uncertain: true },
      ],
      retries: [{ attempt: 2, reason: 'flaky' }],
    });
  });

  it('orders attempts by number whatever order their events come in', () => {
    const view = fold([{ event: 'attempt_stalled', task_id: 't1', attempt: 2, silent_ms: 5 }, started('t1', 1)]);
    expect(view.tasks[0]!.attempts.map((a) => a.attempt)).toEqual([1, 2]);
  });

  it('reports two terminal events of one attempt as a conflict and picks neither', () => {
    const files = makeRunFiles([started('t1'), finished('t1', 1, 'completed'), finished('t1', 1, 'failed')]);
    const view = foldRun(files, PROJECT);
    expect(view.conflicts).toEqual([{ task: 't1', attempt: 1, statuses: ['completed', 'failed'], files: [files.events[1]!.file, files.events[2]!.file] }]);
    expect(view.tasks[0]).toMatchObject({ status: 'conflict', attempts: [{ status: 'conflict', uncertain: false }] });
  });

  it('keeps a conflict when a start for the same attempt comes after it', () => {
    const view = fold([finished('t1', 1, 'completed'), finished('t1', 1, 'failed'), started('t1', 1)]);
    expect(view.tasks[0]!.status).toBe('conflict');
  });

  it('does not let a late start undo a terminal event of its attempt', () => {
    const view = fold([finished('t1', 1, 'completed'), started('t1', 1)]);
    expect(view.tasks[0]).toMatchObject({ status: 'completed', attempts: [{ status: 'completed', uncertain: false }] });
  });

  it('follows the stage of stage events and task starts', () => {
    expect(fold([{ event: 'stage_entered', stage: 'team-verify', iteration: 2, loop: 1 }]).stage).toBe('team-verify');
    expect(fold([started('t1', 1, { stage: 'team-fix' })]).stage).toBe('team-fix');
  });

  it('tracks iteration, fix loop and their limits', () => {
    const view = fold([
      { event: 'run_started', mode: 'ralph', task: 'x', workers: 2, agentType: 'executor', limits: LIMITS, gates: [] },
      { event: 'stage_entered', stage: 'team-fix', iteration: 2, loop: 1 },
      { event: 'verify_result', task_id: 'verify', attempt: 1, verdict: 'fail', defects: [{ id: 'd1', description: 'broken' }], gates: [] },
      { event: 'review_result', task_id: 'review', attempt: 1, verdict: 'reject', reasons: ['no tests'] },
    ]);
    expect(view.pipeline).toMatchObject({
      iteration: 2,
      maxIterations: 10,
      loop: 1,
      maxFixLoops: 3,
      lastDefects: [{ id: 'd1', description: 'broken' }],
      lastReview: { verdict: 'reject', reasons: ['no tests'] },
    });
    expect(view.pipeline.lastDefects).toEqual([{ id: 'd1', description: 'broken', by: 'verifier' }]);
  });

  // Stage routing: the reviewers run beside the verifier and may end first.
  const passOf = (order: 'reviewer first' | 'verifier first') => {
    const verifier = { event: 'verify_result', task_id: 'verify-1', attempt: 1, verdict: 'fail', defects: [{ id: 'd1', description: 'broken build' }] };
    const reviewer = { event: 'verify_result', task_id: 'verify-1.security-reviewer', attempt: 1, verdict: 'fail', defects: [{ id: 's1', description: 'token logged' }] };
    const code = { event: 'verify_result', task_id: 'verify-1.code-reviewer', attempt: 1, verdict: 'pass', defects: [] };
    const gates = { event: 'gates_result', iteration: 1, pass: 1, gates: [{ command: 'npm test', exitCode: 1, timedOut: false, durationMs: 5, output: 'x' }] };
    return fold([gates, ...(order === 'reviewer first' ? [reviewer, code, verifier] : [verifier, code, reviewer])]);
  };
  for (const order of ['reviewer first', 'verifier first'] as const) {
    it(`keeps every defect of a verify pass with who found it, and each verdict, ${order}`, () => {
      const { pipeline } = passOf(order);
      expect(pipeline.lastDefects).toEqual([
        { id: 'gate-1', description: '`npm test` exited 1', by: 'gate' },
        { id: 'd1', description: 'broken build', by: 'verifier' },
        { id: 'security-reviewer-s1', description: 'token logged', by: 'security-reviewer' },
      ]);
      expect(pipeline.verify?.verdicts).toEqual([
        { by: 'verifier', verdict: 'fail' },
        { by: order === 'reviewer first' ? 'security-reviewer' : 'code-reviewer', verdict: order === 'reviewer first' ? 'fail' : 'pass' },
        { by: order === 'reviewer first' ? 'code-reviewer' : 'security-reviewer', verdict: order === 'reviewer first' ? 'pass' : 'fail' },
      ]);
    });
  }

  it('starts the next verify pass afresh and takes the fix loop\'s union as the last defects', () => {
    const view = fold([
      { event: 'verify_result', task_id: 'verify-1.security-reviewer', attempt: 1, verdict: 'fail', defects: [{ id: 's1', description: 'token logged' }] },
      { event: 'verify_result', task_id: 'verify-1', attempt: 1, verdict: 'pass', defects: [] },
      { event: 'fix_loop_started', iteration: 1, loop: 1, defects: [{ id: 'task-t1', description: 'task t1 failed', task: 't1', by: 'exec' }, { id: 'security-reviewer-s1', description: 'token logged', by: 'security-reviewer' }] },
    ]);
    expect(view.pipeline.lastDefects.map((d) => d.id)).toEqual(['task-t1', 'security-reviewer-s1']);
    const next = fold([
      { event: 'verify_result', task_id: 'verify-1.security-reviewer', attempt: 1, verdict: 'fail', defects: [{ id: 's1', description: 'token logged' }] },
      { event: 'verify_result', task_id: 'verify-2.security-reviewer', attempt: 1, verdict: 'pass', defects: [] },
    ]);
    expect(next.pipeline.verify).toEqual({ pass: 'verify-2', verdicts: [{ by: 'security-reviewer', verdict: 'pass' }], defects: [] });
  });

  for (const [event, field, status] of [
    ['run_completed', 'summary', 'completed'],
    ['run_failed', 'reason', 'failed'],
    ['run_cancelled', 'reason', 'cancelled'],
    ['run_stopped', 'reason', 'stopped'],
  ] as const) {
    it(`ends the run ${status} with its ${field} as the outcome on ${event}`, () => {
      const extra = event === 'run_stopped' ? { attempts: [] } : {};
      const view = fold([{ event, [field]: 'why', ...extra }]);
      expect(view).toMatchObject({ status, outcome: 'why' });
    });
  }

  it('shows a cancel request on a live run as cancelling', () => {
    expect(fold([{ event: 'cancel_requested', by: 'ana', force: false }]).status).toBe('cancelling');
  });

  it('leaves a finished run finished when a cancel request comes late', () => {
    expect(fold([{ event: 'run_completed', summary: 'ok' }, { event: 'cancel_requested', by: 'ana', force: true }]).status).toBe('completed');
  });

  it('adds up cost and tokens by attempt, stage, agent and run', () => {
    const usage = (task: string, stage: string, agent: string, cost: number) => ({
      event: 'attempt_usage',
      task_id: task,
      attempt: 1,
      stage,
      agent,
      cost_usd: cost,
      tokens: { input: 10, output: 1 },
      session_id: `s-${task}`,
    });
    const view = fold([usage('t1', 'team-exec', 'claude', 0.5), usage('t1', 'team-exec', 'claude', 0.25), usage('t2', 'team-verify', 'codex', 1)]);
    expect(view.usage.run).toEqual({ costUsd: 1.75, tokens: { input: 30, output: 3 } });
    expect(view.usage.byStage).toEqual({ 'team-exec': { costUsd: 0.75, tokens: { input: 20, output: 2 } }, 'team-verify': { costUsd: 1, tokens: { input: 10, output: 1 } } });
    expect(view.usage.byAgent.codex).toEqual({ costUsd: 1, tokens: { input: 10, output: 1 } });
    expect(view.tasks[0]!.attempts[0]).toMatchObject({ costUsd: 0.75, tokens: { input: 20, output: 2 }, sessionId: 's-t1' });
  });

  it('marks a stalled attempt and names its worker', () => {
    const view = fold([
      started('t1'),
      { event: 'attempt_spawned', task_id: 't1', attempt: 1, worker: 'worker-2', handle: { backend: 'process', pid: 1, pidStart: 1, pgid: 1 } },
      { event: 'attempt_stalled', task_id: 't1', attempt: 1, silent_ms: 300_000 },
    ]);
    expect(view.tasks[0]!.attempts[0]).toMatchObject({ worker: 'worker-2', stalled: true, status: 'running' });
  });

  it('passes the reader problems through and counts only valid events', () => {
    const problems = [{ file: 'events/x.json', reason: 'empty file; ignored' }];
    const view = foldRun(makeRunFiles([started('t1')], { problems }), PROJECT);
    expect(view.problems).toEqual(problems);
    expect(view.eventCount).toBe(1);
  });
});

describe('log/fold run facts beside the tasks', () => {
  const def = (id: string) => ({ id, title: id, description: 'd' });
  const handle = (pid: number) => ({ backend: 'process', pid, pidStart: 1, pgid: pid });

  it('keeps the current iteration\'s tasks and each task\'s worker, a new iteration starting an empty list', () => {
    const events = [
      { event: 'tasks_assigned', tasks: [{ task_id: 't1', worker: 'worker-1', task: def('t1') }, { task_id: 't2', worker: 'worker-2', task: def('t2') }] },
      { event: 'task_assigned', task_id: 't2', worker: 'worker-3' },
      { event: 'iteration_started', iteration: 2 },
      { event: 'task_assigned', task_id: 'i2.t1', worker: 'worker-1' },
    ];
    const files = makeRunFiles(events);
    expect([...fold(events).current]).toEqual(['i2.t1']);
    expect([...foldOf(files.run, files.events).assigned]).toEqual([['t1', 'worker-1'], ['t2', 'worker-3'], ['i2.t1', 'worker-1']]);
  });

  it('keeps every worker handle and gate group the log recorded, and the reports of team workers', () => {
    const files = makeRunFiles([
      { event: 'attempt_spawned', task_id: 't1', attempt: 1, worker: 'worker-1', handle: handle(11) },
      { event: 'gate_spawned', iteration: 1, pass: 1, gate: 1, command: 'npm test', handle: handle(12) },
      { event: 'attempt_taken', task_id: 't2', attempt: 1, worker: 'worker-2', worker_id: 'w', host: 'h', pid: 3, boot_id: '', report: 1 },
      { event: 'attempt_spend', task_id: 't2', attempt: 1, stage: 'team-exec', agent: 'sim', cost_usd: 0.1, report: 2 },
      { event: 'attempt_usage', task_id: 't2', attempt: 1, stage: 'team-exec', agent: 'sim', report: 3 },
      { event: 'attempt_stalled', task_id: 't2', attempt: 1, silent_ms: 5 },
    ]);
    const st = foldOf(files.run, files.events);
    expect([...st.handles]).toEqual([['t1#1', handle(11)]]);
    expect(st.gateGroups).toEqual([handle(12)]);
    expect(st.reports).toEqual({ taken: new Set(['t2#1']), stalled: new Set(['t2#1']), seqs: new Set([2, 3]) });
  });

  it('tells which branch holds what once the run\'s isolation is known', () => {
    const isolation = { mode: 'worktree', reason: 'a git repository', branch: 'team/r', userBranch: 'main', base: 'abc' };
    const view = fold([
      { event: 'run_started', mode: 'team', task: 'x', workers: 1, agentType: 'executor', limits: LIMITS, gates: [], agents: {}, defaultAgent: 'sim', session: '', parent_session: '', workerMode: 'headless', keepPanes: false, isolation },
      { event: 'branch_created', branch: 'team/r--t1', from: 'team/r', commit: 'a', task_id: 't1' },
      { event: 'branch_created', branch: 'team/r--t2', from: 'team/r', commit: 'a', task_id: 't2' },
      { event: 'merge_done', task_id: 't1', attempt: 1, branch: 'team/r--t1', into: 'team/r', commit: 'b', how: 'merged' },
      { event: 'merge_failed', task_id: 't2', attempt: 1, branch: 'team/r--t2', into: 'team/r', reason: 'conflict', files: ['a.ts'], ours: 'b', theirs: 'c' },
      { event: 'branch_landed', branch: 'team/r', into: 'main', commit: 'd' },
    ]);
    expect(view.orchestrated).toBe(true);
    expect(view.branches).toEqual({
      mode: 'worktree', reason: 'a git repository', branch: 'team/r', userBranch: 'main', kept: [], landed: { into: 'main', commit: 'd' },
      tasks: [{ task: 't1', branch: 'team/r--t1', state: 'merged', files: [] }, { task: 't2', branch: 'team/r--t2', state: 'conflict', files: ['a.ts'] }],
    });
    expect(fold([]).branches).toBeUndefined();
  });

  it('keeps what the isolation goes on from: the integration branch\'s tip, merges under way, when worktrees were ready, the user\'s checkout', () => {
    const isolation = { mode: 'worktree', reason: 'a git repository', branch: 'team/r', userBranch: 'main', base: 'abc' };
    const state = { head: 'h1', branch: 'main', branches: { main: 'h1' }, files: {} };
    const files = makeRunFiles([
      { event: 'run_started', mode: 'team', task: 'x', workers: 1, agentType: 'executor', limits: LIMITS, gates: [], agents: {}, defaultAgent: 'sim', session: '', parent_session: '', workerMode: 'headless', keepPanes: false, isolation },
      { event: 'branch_created', branch: 'team/r', from: 'main', commit: 'c1' },
      { event: 'worktree_ready', task_id: 't1', attempt: 1, branch: 'team/r--t1', path: '/w/worker-1', worker: 'worker-1', how: 'created' },
      { event: 'worktree_ready', task_id: 't1', attempt: 1, branch: 'team/r--t1', path: '/w/worker-1', worker: 'worker-1', how: 'adopted' },
      { event: 'merge_started', task_id: 't1', attempt: 1, branch: 'team/r--t1', into: 'team/r', tip: 't1tip' },
      { event: 'merge_started', task_id: 't2', attempt: 1, branch: 'team/r--t2', into: 'team/r', tip: 't2tip' },
      { event: 'merge_done', task_id: 't1', attempt: 1, branch: 'team/r--t1', into: 'team/r', commit: 'c2', how: 'merged' },
      { event: 'checkout_recorded', state },
      { event: 'git_lock_stale', path: '.git/index.lock', removed: false },
      { event: 'branch_restored', branch: 'team/r', commit: 'c2', was: 'c9', kept: 'team/r-moved' },
    ]);
    const { git } = foldOf(files.run, files.events);
    expect([git.tip, [...git.pendingMerges], [...git.readyAt], git.checkout]).toEqual(['c2', [['t2#1', 't2tip']], [['t1#1', Date.parse(files.events[2]!.at)]], state]);
    expect(foldRun(files, PROJECT).branches).toMatchObject({ userLocks: ['.git/index.lock'], restored: [{ commit: 'c2', was: 'c9', kept: 'team/r-moved' }] });
  });

  it('tells the story: stages until the next or the end, verdicts, gates, markers, handoffs, milestones and the end', () => {
    const view = fold([
      { event: 'stage_entered', stage: 'team-exec', iteration: 1, loop: 0 },
      { event: 'stage_completed', stage: 'team-exec', iteration: 1, loop: 0 },
      { event: 'stage_entered', stage: 'team-verify', iteration: 1, loop: 0 },
      { event: 'gates_result', iteration: 1, pass: 1, gates: [{ command: 'npm test', exitCode: 1, timedOut: false, durationMs: 5, output: 'x' }] },
      { event: 'verify_result', task_id: 'verify-1', attempt: 1, verdict: 'fail', defects: [{ id: 'd1', description: 'broken' }] },
      { event: 'handoff_written', stage: 'team-verify', path: 'h/02.md', sha256: 'ab', text: 'T' },
      { event: 'run_resumed', pid: 7, retry_interrupted: false },
      { event: 'run_failed', reason: 'no' },
      { event: 'cancel_requested', by: 'team cancel', force: true },
    ]);
    const at = (n: number) => `2026-10-28T13:10:${10 + n}.000Z`;
    expect(view.story.stages).toEqual([{ stage: 'team-exec', iteration: 1, loop: 0, at: at(0), until: at(2) }, { stage: 'team-verify', iteration: 1, loop: 0, at: at(2), until: at(7) }]);
    expect(view.story.verdicts).toEqual({ 'verify-1#1': { verdict: 'fail', defects: [{ id: 'd1', description: 'broken' }], reasons: [] } });
    expect(view.story.gates).toEqual({ '1:1': [{ command: 'npm test', exitCode: 1, timedOut: false, durationMs: 5 }] });
    expect(view.story.markers.map((m) => m.label)).toEqual(['restart: team resume (pid 7)', 'cancel: team cancel --force']);
    expect(view.story.handoffs).toEqual([{ stage: 'team-verify', path: 'h/02.md', sha256: 'ab', text: 'T' }]);
    expect(view.story.milestones).toEqual([{ at: at(1), action: 'team-exec completed' }, { at: at(7), action: 'run failed' }]);
    expect([view.endedAt, view.lastAt]).toEqual([at(7), at(8)]);
  });
});

describe('checkpoint/view approvals', () => {
  // A project holding plan.md, and an approval of `approvedText` as plan.md.
  function foldApproval(approvedText: string, onDisk: string | undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'teamline-view-'));
    dirs.push(dir);
    if (onDisk !== undefined) writeFileSync(join(dir, 'plan.md'), onDisk);
    const sha256 = createHash('sha256').update(approvedText).digest('hex');
    const approval = { stage: 'team-plan', artifact: 'plan.md', sha256, by: 'ana', approved_at: 'x', note: '', file: 'a.json' };
    return foldRun(makeRunFiles([], { approvals: [approval] }), dir).approvals[0]!;
  }

  it('finds an approval of the artifact as it is now fresh', () => {
    expect(foldApproval('v1', 'v1')).toMatchObject({ stale: false });
  });

  it('finds an approval stale when the artifact changed', () => {
    expect(foldApproval('v1', 'v2')).toMatchObject({ stale: true, staleReason: expect.stringMatching(/^the artifact changed/) });
  });

  it('finds an approval stale when the artifact is gone', () => {
    expect(foldApproval('v1', undefined)).toMatchObject({ stale: true, staleReason: 'the artifact is gone' });
  });
});

import { describe, expect, it } from 'vitest';
import { transition } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import type { PipelineEvent, PipelineInput, RoutingPolicy } from '../../machines/types.js';
import { recordsOf, replayRun } from '../../src/session/replay.js';
import { renderHandoff } from '../../handoffs/render.js';
import type { NewEvent } from '../../src/log/schema.js';
import { Driver, LIMITS, makeInput } from './drive.js';
import { keyOf, nameOf, pipelineMachine, proposeEvents, type PipelineSnapshot } from './graph.js';
import { T1, toExec, toVerify } from './routes.js';

const POLICY: RoutingPolicy = { reviewFiles: 20, fixer: 'debugger', known: ['sim', 'codex'] };
const AUTH = { type: 'changes.scanned' as const, files: 2, security: ['src/auth/ changed'] };
const gate = (exitCode: number) => ({ command: 'npm run build', exitCode, timedOut: false, durationMs: 1, output: exitCode ? 'error TS2322' : 'ok' });

// A routed run (only the executor has an agent of its own) driven to its verifier.
function routed(input: Partial<PipelineInput> = {}): Driver {
  return new Driver(makeInput({ routing: POLICY, agents: { executor: 'sim', verifier: 'sim' }, ...input }));
}

// Finishes a reviewer attempt with its verdict first, as the runtime logs them.
function review(d: Driver, role: string, verdict: 'pass' | 'fail', defects = verdict === 'fail' ? [{ id: 'r1', description: 'token in the log' }] : []): Driver {
  const r = d.context.reviewers.find((x) => x.role === role)!;
  d.send({ type: 'verify.result', task_id: r.id, attempt: r.attempt, verdict, defects });
  return d.send({ type: 'task.finished', task_id: r.id, attempt: r.attempt, status: 'completed', evidence: `${role} done`, artifacts: [] });
}

const names = (records: NewEvent[]) => records.map((r) => (r.event === 'task_started' ? `task_started ${r.task_id}` : r.event));

describe('stage routing in the pipeline machine', () => {
  it('adds a security-reviewer when src/auth/ changed, recorded before both verify attempts start, in parallel', () => {
    const d = toVerify(toExec(routed()));
    expect(d.state).toBe('{"verify":"scan"}');
    expect(d.spawned.at(-1)).toMatchObject({ src: 'scanChanges', input: { iteration: 1, pass: 1 } });
    const mark = d.records.length;
    d.send(AUTH);
    expect(names(d.since(mark))).toEqual(['routing_decided', 'task_started verify-1', 'task_started verify-1.security-reviewer']);
    expect(d.since(mark)[0]).toEqual({
      event: 'routing_decided', stage: 'team-verify', iteration: 1, loop: 0,
      decisions: [
        { role: 'security-reviewer', agent: 'sim', why: 'added: src/auth/ changed' },
        { role: 'security-reviewer', agent: 'sim', why: "has no agent of its own: runs on the verifier's (sim)" },
      ],
    });
    expect(d.spawned.slice(-2).map((s) => [s.id, (s.input as { worker: string }).worker])).toEqual([
      ['attempt:verify-1:a1', 'lead'],
      ['attempt:verify-1.security-reviewer:a1', 'security-reviewer'],
    ]);
    expect(d.context.decisions.map((x) => x.text)).toContain('security-reviewer added: src/auth/ changed');
  });

  it('passes verify only when the verifier and every reviewer pass; a rejecting reviewer fails it with its defects, each saying who found it', () => {
    const passing = toVerify(toExec(routed())).send(AUTH).verify('pass');
    expect(passing.state).toBe('{"verify":"verifier"}');
    review(passing, 'security-reviewer', 'pass');
    expect(passing.state).toBe('{"verify":"handoff"}');
    expect(passing.context.verdict).toBe('pass');

    const failing = toVerify(toExec(routed())).send(AUTH);
    review(failing, 'security-reviewer', 'fail');
    expect(failing.state).toBe('{"verify":"verifier"}');
    failing.verify('pass');
    expect(failing.context.verdict).toBe('fail');
    expect(failing.context.defects).toEqual([{ id: 'security-reviewer-r1', description: 'token in the log', by: 'security-reviewer' }]);
    failing.handoff();
    expect(failing.recorded('fix_loop_started')[0]!.defects).toEqual(failing.context.defects);
  });

  it('adds a code-reviewer for more than reviewFiles changed files, or for a plan marked architectural', () => {
    const many = toVerify(toExec(routed())).send({ type: 'changes.scanned', files: 25, security: [] });
    expect(many.context.reviewers.map((r) => r.role)).toEqual(['code-reviewer']);
    expect(many.recorded('routing_decided')[0]!.decisions[0]).toEqual({ role: 'code-reviewer', agent: 'sim', why: 'added: 25 files changed (more than 20)' });

    const twenty = toVerify(toExec(routed())).send({ type: 'changes.scanned', files: 20, security: [] });
    expect(twenty.context.reviewers).toEqual([]);
    expect(twenty.recorded('routing_decided')).toEqual([]);

    const d = routed();
    const { id, attempt } = d.context.stageAttempt!;
    d.finishStage('completed', { type: 'plan.accepted', task_id: id, attempt, tasks: [T1], needsPrd: false, architectural: true }).handoff();
    toVerify(d).send({ type: 'changes.scanned', files: 1, security: [] });
    expect(d.context.reviewers.map((r) => r.role)).toEqual(['code-reviewer']);
  });

  it('retries a failed reviewer, and makes one that fails every attempt a defect of verify', () => {
    const d = toVerify(toExec(routed())).send(AUTH).verify('pass');
    const r = d.context.reviewers[0]!;
    d.send({ type: 'task.finished', task_id: r.id, attempt: 1, status: 'failed', evidence: 'crashed', artifacts: [] });
    expect(d.recorded('task_started').at(-1)).toMatchObject({ task_id: r.id, attempt: 2 });
    d.send({ type: 'task.finished', task_id: r.id, attempt: 2, status: 'failed', evidence: 'crashed again', artifacts: [] });
    expect(d.context.verdict).toBe('fail');
    expect(d.context.defects).toEqual([{ id: 'security-reviewer-failed', description: 'the security-reviewer could not review: crashed again', by: 'security-reviewer' }]);
  });

  it('stops the reviewers when the verifier fails for good, and when the run is cancelled', () => {
    const d = toVerify(toExec(routed())).send(AUTH);
    d.finishStage('failed').finishStage('failed');
    expect(d.state).toBe('"stopping"');
    expect(d.stopped).toContain('attempt:verify-1.security-reviewer:a1');
    const r = d.context.reviewers[0]!;
    d.send({ type: 'task.finished', task_id: r.id, attempt: 1, status: 'interrupted', evidence: 'stopped', artifacts: [] });
    expect(d.state).toBe('"failing"');

    const c = toVerify(toExec(routed())).send(AUTH).send({ type: 'cancel.requested', force: false });
    expect(c.stopped).toEqual(expect.arrayContaining(['attempt:verify-1:a1', 'attempt:verify-1.security-reviewer:a1']));
  });

  it('sends a failing gate to the debugger, saying once that it runs on the executor\'s agent', () => {
    const d = toVerify(toExec(routed({ gates: ['npm run build'] })));
    d.send({ type: 'gates.result', gates: [gate(2)] }).send({ type: 'changes.scanned', files: 1, security: [] });
    d.verify('fail', [{ id: 'd1', description: 'the page is blank' }]).handoff();
    const fix = d.recorded('routing_decided').at(-1)!;
    expect(fix).toEqual({
      event: 'routing_decided', stage: 'team-fix', iteration: 1, loop: 1,
      decisions: [
        { task_id: 'fix-1-gate-1', role: 'debugger', agent: 'sim', why: 'takes it: a failing gate (gate-1)' },
        { role: 'debugger', agent: 'sim', why: "has no agent of its own: runs on the executor's (sim)" },
      ],
    });
    expect(d.context.tasks['fix-1-gate-1']!.role).toBe('debugger');
    expect(d.context.tasks['fix-1-d1']!.role).toBe('executor');
    d.handoff();
    const started = names(d.records).indexOf('task_started fix-1-gate-1');
    expect(started).toBeGreaterThan(d.records.indexOf(fix));
    // The second loop's debugger decision does not repeat the fallback.
    toVerify(d).send({ type: 'gates.result', gates: [gate(2)] }).send({ type: 'changes.scanned', files: 1, security: [] });
    d.verify('pass').handoff();
    expect(d.recorded('routing_decided').at(-1)!.decisions).toEqual([{ task_id: 'fix-2-gate-1', role: 'debugger', agent: 'sim', why: 'takes it: a failing gate (gate-1)' }]);
  });

  it('routes a task the planner tagged with a configured agent to it, and an unknown tag to the executor with a note', () => {
    const d = routed({ workers: 2 });
    const { id, attempt } = d.context.stageAttempt!;
    const tasks = [{ ...T1, agent: 'codex' }, { ...T1, id: 't2', agent: 'gemini' }];
    d.finishStage('completed', { type: 'plan.accepted', task_id: id, attempt, tasks, needsPrd: false });
    expect(d.recorded('routing_decided')[0]!.decisions).toEqual([
      { task_id: 't1', role: 'executor', agent: 'codex', why: 'runs on codex: tagged by the planner' },
      { task_id: 't2', role: 'executor', agent: 'sim', why: 'takes it: the planner tagged gemini, which is not configured' },
    ]);
    d.handoff();
    expect(d.recorded('task_started').filter((r) => r.stage === 'team-exec').map((r) => [r.task_id, r.agent])).toEqual([['t1', 'codex'], ['t2', 'sim']]);
  });

  it('gives each attempt the model the cost mode chose for its role, and none to an agent the planner tagged', () => {
    const d = routed({ models: { planner: 'opus', executor: 'haiku', verifier: 'sonnet' }, workers: 2 });
    expect((d.spawned[0]!.input as { model?: string }).model).toBe('opus');
    const { id, attempt } = d.context.stageAttempt!;
    d.finishStage('completed', { type: 'plan.accepted', task_id: id, attempt, tasks: [T1, { ...T1, id: 't2', agent: 'codex' }], needsPrd: false }).handoff();
    const exec = d.spawned.filter((s) => s.src === 'runAttempt').slice(-2).map((s) => (s.input as { model?: string }).model);
    expect(exec).toEqual(['haiku', undefined]);
  });

  it('keeps the behaviour of a run without routing: no scan, no decision, fix tasks on the executor', () => {
    const d = toVerify(toExec(new Driver(makeInput({ gates: ['npm run build'] }))));
    d.send({ type: 'gates.result', gates: [gate(2)] });
    expect(d.state).toBe('{"verify":"verifier"}');
    d.verify('pass').handoff();
    expect(d.recorded('routing_decided')).toEqual([]);
    expect(d.context.tasks['fix-1-gate-1']!.role).toBe('executor');
    expect(d.context.defects[0]).not.toHaveProperty('by');
  });

  it('replays a routed run with reviewers, a debugger and a retried reviewer to the same state', () => {
    const d = toVerify(toExec(routed({ gates: ['npm run build'] })));
    d.send({ type: 'gates.result', gates: [gate(2)] }).send(AUTH);
    const r = d.context.reviewers[0]!;
    d.send({ type: 'task.finished', task_id: r.id, attempt: 1, status: 'interrupted', evidence: 'x', artifacts: [] });
    review(d, 'security-reviewer', 'fail');
    d.verify('pass').handoff();
    toVerify(d.handoff());
    const replay = replayRun(d.log);
    expect(replay.pending).toEqual([]);
    expect(replay.snapshot.value).toEqual(d.snapshot.value);
    expect(replay.snapshot.context).toEqual({ ...d.context, inPlace: true });
  });
});

// The graph of a routed run: the scan may or may not bring a reviewer, and each reviewer may pass,
// fail its verdict or fail its attempts. The key adds what routing keeps to the usual one.
function routedEvents(s: PipelineSnapshot): PipelineEvent[] {
  const c = s.context;
  if (s.matches({ verify: 'scan' })) return [AUTH, { type: 'changes.scanned', files: 0, security: [] }];
  const base = proposeEvents(s, { cancel: false, interrupt: false, stageFailures: false });
  if (!s.matches({ verify: 'verifier' })) return base;
  const extra: PipelineEvent[] = [];
  for (const r of c.reviewers.filter((x) => x.status === 'running')) {
    const ref = { task_id: r.id, attempt: r.attempt };
    if (!c.reviews[r.id]) extra.push({ type: 'verify.result', ...ref, verdict: 'pass', defects: [] }, { type: 'verify.result', ...ref, verdict: 'fail', defects: [{ id: 'r1', description: 'no' }] });
    else extra.push({ type: 'task.finished', ...ref, status: 'completed', evidence: 'ok', artifacts: [] });
    extra.push({ type: 'task.finished', ...ref, status: 'failed', evidence: 'crash', artifacts: [] });
  }
  return [...base, ...extra];
}
const routedKey = (s: PipelineSnapshot) => JSON.stringify([keyOf(s), s.context.reviewers.map((r) => [r.id, r.attempt, r.status, r.failures]), Object.entries(s.context.reviews).map(([k, v]) => [k, v.verdict])]);

describe('stage routing over the graph of stages', () => {
  const input = makeInput({ workers: 1, routing: POLICY, agents: { executor: 'sim' }, limits: { ...LIMITS, maxFixLoops: 1 } });
  const paths = getShortestPaths(pipelineMachine, { input, events: routedEvents, serializeState: routedKey });

  it('reaches the scan and the parallel verifier, and ends every route in a final state or a live one', () => {
    const states = new Set(paths.map((p) => nameOf(p.state.value)));
    expect(states).toContain('verify.scan');
    expect(states).toContain('verify.verifier');
    expect(states).toContain('done');
    expect(states).toContain('failed');
  });

  it('on every path: each reviewer\'s decision is logged before its first attempt, and verify passes only when every reviewer passed', () => {
    let checked = 0;
    for (const path of paths.filter((p) => ['verify.handoff', 'done', 'failed'].includes(nameOf(p.state.value)))) {
      const log: NewEvent[] = [];
      let state = path.steps[0]!.state;
      for (const step of path.steps.slice(1)) {
        const [next, actions] = transition(pipelineMachine, state, step.event as PipelineEvent);
        log.push(...recordsOf(actions));
        state = next;
      }
      for (const [i, r] of log.entries()) {
        if (r.event !== 'task_started' || !r.task_id.includes('.')) continue;
        const role = r.task_id.split('.').at(-1)!;
        const decided = log.findIndex((x) => x.event === 'routing_decided' && x.decisions.some((dd) => dd.role === role && dd.why.startsWith('added')));
        expect(decided).toBeGreaterThanOrEqual(0);
        expect(decided).toBeLessThan(i);
      }
      const c = state.context;
      if (['verify.handoff', 'done'].includes(nameOf(state.value)) && c.verdict === 'pass' && c.reviewers.length > 0) {
        checked += 1;
        expect(c.reviewers.every((r) => r.status === 'completed' && c.reviews[r.id]?.verdict === 'pass')).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('team scale in the pipeline machine', () => {
  it('adds workers with new names, drains idle ones first and lets a busy one finish', () => {
    const d = toExec(new Driver(makeInput({ workers: 2 })), Array.from({ length: 6 }, (_, i) => ({ ...T1, id: `t${i + 1}` })));
    expect(d.running()).toEqual(['t1', 't2']);
    d.send({ type: 'workers.scaled', workers: 3 });
    expect(d.recorded('workers_changed')[0]).toEqual({ event: 'workers_changed', workers: 3, roster: ['worker-1', 'worker-2', 'worker-3'], added: ['worker-3'], drained: [] });
    expect(d.running().map((id) => d.context.tasks[id]!.worker)).toEqual(['worker-1', 'worker-2', 'worker-3']);
    d.finishTask('t2');
    // worker-2 took the next task; worker-3 and worker-1 are busy: down to 1 drains worker-3, then worker-2.
    d.send({ type: 'workers.scaled', workers: 1 });
    expect(d.recorded('workers_changed')[1]).toMatchObject({ workers: 1, roster: ['worker-1'], drained: ['worker-3', 'worker-2'] });
    const busy = d.running();
    expect(busy).toHaveLength(3);
    for (const id of busy) d.finishTask(id);
    expect(d.running().map((id) => d.context.tasks[id]!.worker)).toEqual(['worker-1']);
    d.send({ type: 'workers.scaled', workers: 2 });
    expect(d.recorded('workers_changed')[2]).toMatchObject({ roster: ['worker-1', 'worker-4'], added: ['worker-4'] });
    expect(d.running().map((id) => d.context.tasks[id]!.worker).sort()).toEqual(['worker-1', 'worker-4']);
    const replay = replayRun(d.log);
    expect(replay.snapshot.context).toEqual({ ...d.context, inPlace: true });
  });
});

describe('explore before the planner', () => {
  const FOUND = { files: ['src/api.ts'], commands: ['npm test'], conventions: ['one module per route'] };

  it('runs a read-only explore agent first and hands its findings to the planner', () => {
    const d = routed({ routing: { ...POLICY, explore: true } });
    expect(names(d.records)).toEqual(['stage_entered', 'task_started explore']);
    expect(d.spawned[0]).toMatchObject({ input: { taskId: 'explore', role: 'explore', stage: 'team-plan', agent: 'sim' } });
    d.send({ type: 'explore.found', task_id: 'explore', attempt: 1, findings: FOUND });
    d.send({ type: 'task.finished', task_id: 'explore', attempt: 1, status: 'completed', evidence: 'read', artifacts: [] });
    expect(d.state).toBe('{"plan":"working"}');
    expect(d.spawned.at(-1)).toMatchObject({ input: { taskId: 'plan', role: 'planner', findings: FOUND } });
    const replay = replayRun(d.plan([T1]).handoff().log);
    expect(replay.snapshot.context).toEqual({ ...d.context, inPlace: true });
  });

  it('lets the planner plan without findings when explore fails every attempt, and says so', () => {
    const d = routed({ routing: { ...POLICY, explore: true } });
    d.finishStage('failed').finishStage('failed');
    expect(d.state).toBe('{"plan":"working"}');
    expect(d.recorded('routing_decided').at(-1)!.decisions).toEqual([{ role: 'explore', agent: 'sim', why: 'failed: the planner plans without its findings' }]);
    expect(d.spawned.at(-1)!.input).not.toHaveProperty('findings');
  });
});

describe('the critic in team-prd', () => {
  const NO_CRITERIA = { id: 't1', title: 'T1', description: 'one' };

  it('runs after the analyst, adds its criteria to the tasks and keeps its objections for the handoff', () => {
    const d = routed({ routing: { ...POLICY, critic: true } }).plan([NO_CRITERIA]).handoff();
    const analyst = d.context.stageAttempt!;
    d.finishStage('completed', { type: 'prd.accepted', task_id: analyst.id, attempt: analyst.attempt, acceptance: { t1: ['works'] } });
    expect(d.state).toBe('{"prd":"critic"}');
    expect(d.recorded('stage_completed').map((r) => r.stage)).toEqual(['team-plan']);
    expect(d.spawned.at(-1)).toMatchObject({ input: { taskId: 'critic', role: 'critic', stage: 'team-prd' } });
    d.finishStage('completed', { type: 'critic.objected', task_id: 'critic', attempt: 1, objections: ['no error path'], acceptance: { t1: ['empty input is refused'] } });
    expect(d.state).toBe('{"prd":"handoff"}');
    expect(d.recorded('stage_completed').map((r) => r.stage)).toEqual(['team-plan', 'team-prd']);
    expect(d.context.tasks.t1!.def.acceptance).toEqual(['works', 'empty input is refused']);
    expect(d.context.objections).toEqual(['no error path']);
    const replay = replayRun(d.handoff().log);
    expect(replay.snapshot.context).toEqual({ ...d.context, inPlace: true });
  });

  it('completes the PRD as before when no critic is configured', () => {
    const d = routed().plan([NO_CRITERIA]).handoff();
    const analyst = d.context.stageAttempt!;
    d.finishStage('completed', { type: 'prd.accepted', task_id: analyst.id, attempt: analyst.attempt, acceptance: { t1: ['works'] } });
    expect(d.state).toBe('{"prd":"handoff"}');
    expect(d.recorded('task_started').map((r) => r.task_id)).toEqual(['plan', 'prd']);
  });
});

describe('the plan\'s architect', () => {
  it('reviews the plan when the planner asks, before the plan\'s handoff; its notes and risks are kept for it', () => {
    const d = routed({ routing: { ...POLICY, architect: 'on-request' } });
    const { id, attempt } = d.context.stageAttempt!;
    d.finishStage('completed', { type: 'plan.accepted', task_id: id, attempt, tasks: [T1], needsPrd: false, needsArchitect: true });
    expect(d.state).toBe('{"plan":"architect"}');
    expect(d.recorded('routing_decided').at(-1)!.decisions).toEqual([{ role: 'architect', agent: 'sim', why: 'added: the planner asked for one (needsArchitect)' }]);
    expect(d.spawned.at(-1)).toMatchObject({ input: { taskId: 'architect', role: 'architect', stage: 'team-plan' } });
    d.finishStage('completed', { type: 'architect.noted', task_id: 'architect', attempt: 1, notes: ['the API owns validation'], risks: ['two tasks touch one schema'] });
    expect(d.state).toBe('{"plan":"handoff"}');
    expect(d.context.architectNotes).toEqual({ notes: ['the API owns validation'], risks: ['two tasks touch one schema'] });
    expect(replayRun(d.handoff().log).snapshot.context).toEqual({ ...d.context, inPlace: true });
  });

  it('runs no architect when the planner does not ask, and always when the config says so; analyst "always" forces the PRD', () => {
    const none = routed({ routing: { ...POLICY, architect: 'on-request' } }).plan([T1]);
    expect(none.state).toBe('{"plan":"handoff"}');
    const always = routed({ routing: { ...POLICY, architect: 'always', analyst: 'always' } }).plan([T1]);
    expect(always.state).toBe('{"plan":"architect"}');
    always.finishStage('completed', { type: 'architect.noted', task_id: 'architect', attempt: 1, notes: [], risks: [] }).handoff();
    expect(always.state).toBe('{"prd":"working"}');
  });
});

describe('the evidence of each attempt of a routed stage, in its handoff', () => {
  // Ends the running single-agent attempt with `payload` and its own evidence.
  const finish = (d: Driver, payload: PipelineEvent, evidence: string) => {
    const { id, attempt } = d.context.stageAttempt!;
    d.send(payload);
    return d.send({ type: 'task.finished', task_id: id, attempt, status: 'completed', evidence, artifacts: [] });
  };
  const handoffOf = (d: Driver, stage: 'team-plan' | 'team-prd', next: string) => renderHandoff({ stage, next, index: 1, context: d.context });

  it('labels the planner\'s evidence and the architect\'s each under its own role in the plan\'s handoff', () => {
    const d = routed({ routing: { ...POLICY, explore: true, architect: 'on-request' } });
    finish(d, { type: 'explore.found', task_id: 'explore', attempt: 1, findings: { files: ['src/'], commands: [], conventions: [] } }, 'read src/ whole');
    finish(d, { type: 'plan.accepted', task_id: 'plan', attempt: 1, tasks: [T1], needsPrd: false, needsArchitect: true }, 'one task, t1');
    finish(d, { type: 'architect.noted', task_id: 'architect', attempt: 1, notes: [], risks: [] }, 'the boundaries hold');
    const text = handoffOf(d, 'team-plan', 'team-exec');
    expect(text).toContain('- explore: read src/ whole');
    expect(text).toContain('- planner: one task, t1');
    expect(text).toContain('- architect: the boundaries hold');
    expect(text).not.toContain('planner: the boundaries hold');
    expect(replayRun(d.handoff().log).snapshot.context).toEqual({ ...d.context, inPlace: true });
  });

  it('labels the analyst\'s evidence and the critic\'s each under its own role in the PRD\'s handoff', () => {
    const d = routed({ routing: { ...POLICY, critic: true } }).plan([{ id: 't1', title: 'T1', description: 'one' }]).handoff();
    finish(d, { type: 'prd.accepted', task_id: 'prd', attempt: 1, acceptance: { t1: ['works'] } }, 'criteria for t1');
    finish(d, { type: 'critic.objected', task_id: 'critic', attempt: 1, objections: [], acceptance: {} }, 'the scope is fine');
    const text = handoffOf(d, 'team-prd', 'team-exec');
    expect(text).toContain('- analyst: criteria for t1');
    expect(text).toContain('- critic: the scope is fine');
    expect(text).not.toContain('analyst: the scope is fine');
  });
});

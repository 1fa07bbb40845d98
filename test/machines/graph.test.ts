import { beforeAll, describe, expect, it } from 'vitest';
import { transition } from 'xstate';
import { getShortestPaths, getSimplePaths } from 'xstate/graph';
import type { PipelineEvent, PipelineInput } from '../../machines/types.js';
import { recordsOf } from '../../src/session/replay.js';
import { Driver, LIMITS, makeInput } from './drive.js';
import { activeIds, ALL, finalSources, keyOf, nameOf, pipelineMachine, proposeEvents, type Proposals } from './graph.js';


// Small inputs (1 task, 1 worker) whose graphs stay in the thousands of states.
const CONFIGS: Record<string, { input: PipelineInput; proposals: Proposals }> = {
  'team, no gate, 2 fix loops': { input: makeInput({ workers: 1, limits: { ...LIMITS, maxFixLoops: 2 } }), proposals: ALL },
  'team, one gate, 1 fix loop': { input: makeInput({ workers: 1, gates: ['npm test'], limits: { ...LIMITS, maxFixLoops: 1 } }), proposals: { ...ALL, interrupt: false } },
  'ralph, 2 iterations of 1 fix loop': { input: makeInput({ mode: 'ralph', workers: 1, limits: { ...LIMITS, maxFixLoops: 1, maxIterations: 2 } }), proposals: { ...ALL, interrupt: false } },
};

const EXPECTED_STATES = [
  'plan.working', 'plan.handoff', 'prd.working', 'prd.handoff', 'exec.working', 'exec.handoff', 'verify.gates', 'verify.verifier',
  'verify.handoff', 'review.working', 'review.handoff', 'fix.handoff', 'stopped', 'failing', 'cancelling', 'cancelHandoff', 'done', 'failed', 'cancelled',
];

const FINAL_RECORD: Record<string, string> = { done: 'run_completed', failed: 'run_failed', cancelled: 'run_cancelled' };
const TERMINAL_RECORDS = Object.values(FINAL_RECORD);

// Every shortest path from the start, one per distinct state key.
function shortestPaths(input: PipelineInput, proposals: Proposals) {
  return getShortestPaths(pipelineMachine, { input, events: (s) => proposeEvents(s, proposals), serializeState: (s) => keyOf(s) });
}

type Path = ReturnType<typeof shortestPaths>[number];
// The events that walk a path (its first step is the initial state).
const eventsOf = (path: Path) => path.steps.slice(1).map((step) => step.event as PipelineEvent);
const paths = new Map<string, Path[]>();

beforeAll(() => {
  for (const [name, { input, proposals }] of Object.entries(CONFIGS)) {
    paths.set(name, shortestPaths(input, proposals));
  }
}, 120_000);

describe('pipeline machine graph paths', () => {
  it('reaches every state of the machine by some shortest path', () => {
    const reached = new Set([...paths.values()].flat().map((p) => nameOf(p.state.value)));
    expect([...reached].sort()).toEqual([...EXPECTED_STATES].sort());
  });

  for (const [name, { input }] of Object.entries(CONFIGS)) {
    it(`never runs more attempts than workers, fix loops or iterations than allowed on any path (${name})`, () => {
      const maxIterations = input.mode === 'ralph' ? input.limits.maxIterations : 1;
      const over = paths.get(name)!.map((p) => p.state).filter(({ context: c }) =>
        Object.values(c.tasks).filter((t) => t.status === 'running').length > input.workers || c.loop > input.limits.maxFixLoops || c.iteration > maxIterations);
      expect(over.map(keyOf)).toEqual([]);
      expect(Math.max(...paths.get(name)!.map((p) => p.state.context.loop))).toBe(input.limits.maxFixLoops);
      expect(Math.max(...paths.get(name)!.map((p) => p.state.context.iteration))).toBe(maxIterations);
    });

    it(`ends every route into a final state with the final state's run record, and nothing after it (${name})`, () => {
      const sources = finalSources();
      expect([...sources].sort()).toEqual(['pipeline.cancelHandoff', 'pipeline.failing', 'pipeline.review.handoff', 'pipeline.verify.handoff']);
      const ends: string[] = [];
      for (const { state } of paths.get(name)!) {
        if (state.status === 'done' || !activeIds(state).some((id) => sources.has(id))) continue;
        for (const event of proposeEvents(state, CONFIGS[name]!.proposals)) {
          const [next, actions] = transition(pipelineMachine, state, event);
          if (next.status !== 'done') continue;
          const terminal = recordsOf(actions).filter((r) => TERMINAL_RECORDS.includes(r.event));
          ends.push(`${nameOf(next.value)} ${terminal.map((r) => r.event).join(',')} last=${recordsOf(actions).at(-1)?.event}`);
        }
      }
      expect(new Set(ends)).toEqual(new Set(['done run_completed last=run_completed', 'failed run_failed last=run_failed', 'cancelled run_cancelled last=run_cancelled']));
    });

    it(`replays the events of every shortest path to a final state through the Driver (${name})`, () => {
      for (const path of paths.get(name)!.filter((p) => p.state.status === 'done')) {
        const d = new Driver(input);
        for (const event of eventsOf(path)) d.send(event);
        expect(keyOf(d.snapshot)).toBe(keyOf(path.state));
        expect(d.records.filter((r) => TERMINAL_RECORDS.includes(r.event)).map((r) => r.event)).toEqual([FINAL_RECORD[nameOf(d.snapshot.value)]]);
        expect(d.records.at(-1)?.event).toBe(FINAL_RECORD[nameOf(d.snapshot.value)]);
        expect(d.maxRunning).toBeLessThanOrEqual(input.workers);
        expect(d.recorded('fix_loop_started').length).toBeLessThanOrEqual(input.limits.maxFixLoops * input.limits.maxIterations);
      }
    });
  }

  it('lists every simple route of a small team run to its end, each ending with its run record', () => {
    const input = makeInput({ workers: 1, limits: { ...LIMITS, maxFixLoops: 1 } });
    const proposals = { cancel: false, interrupt: false, stageFailures: false };
    const routes = getSimplePaths(pipelineMachine, { input, events: (s) => proposeEvents(s, proposals), serializeState: (s) => keyOf(s), toState: (s) => s.status === 'done' });
    const ends = new Set<string>();
    for (const route of routes) {
      const d = new Driver(input);
      for (const event of eventsOf(route)) d.send(event);
      const end = nameOf(d.snapshot.value);
      ends.add(end);
      expect(d.records.at(-1)?.event).toBe(FINAL_RECORD[end]);
      expect(d.recorded('fix_loop_started').length).toBeLessThanOrEqual(1);
      // The one worker spent on two failed tasks ends the run at once; else verify ends it.
      if (end === 'failed') expect(d.records.at(-1)).toMatchObject({ reason: expect.stringMatching(/^(verify failed with 1 of 1 fix loops spent; last defects: |no worker left: every worker failed 2 tasks)/) });
    }
    expect([...ends].sort()).toEqual(['done', 'failed']);
    expect(routes.length).toBeGreaterThan(10);
  });
});

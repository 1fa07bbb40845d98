import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { pipelineMachine } from '../../machines/pipeline.js';
import type { HandoffInput, PipelineEvent } from '../../machines/types.js';
import { checkHandoffShape, readHandoffs } from '../../handoffs/read.js';
import { writeHandoff } from '../../handoffs/write.js';
import { LIMITS } from './contexts.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// The real pipeline machine with a writeHandoff that writes into `dir` and reports back.
function startPipeline(dir: string) {
  const written: HandoffInput[] = [];
  const machine = pipelineMachine.provide({
    actors: {
      writeHandoff: fromPromise<void, HandoffInput>(async ({ input }) => {
        written.push(input);
      }),
    },
  });
  const input = { mode: 'team' as const, task: 'add input validation to the API', workers: 2, agentType: 'executor', limits: LIMITS, gates: [], agents: {}, defaultAgent: 'sim', session: 's', parent_session: '' };
  const actor = createActor(machine, { input }).start();
  const send = (event: PipelineEvent) => actor.send(event);
  const context = () => actor.getSnapshot().context;
  // Writes the handoff the machine asked for, then tells the machine, as the runtime does.
  const settle = async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
    const request = written.at(-1)!;
    const { file } = writeHandoff(dir, request, { fsync: false });
    send({ type: 'handoff.written', stage: request.stage, path: file });
  };
  const finishStage = (payload: (id: string, attempt: number) => PipelineEvent) => {
    const { id, attempt } = context().stageAttempt!;
    send(payload(id, attempt));
    send({ type: 'task.finished', task_id: id, attempt, status: 'completed', evidence: `${id} done`, artifacts: [] });
  };
  const finishRunning = (status: 'completed' | 'interrupted') => {
    for (const task of Object.values(context().tasks).filter((t) => t.status === 'running')) {
      send({ type: 'task.finished', task_id: task.id, attempt: task.attempt, status, evidence: `${task.id}: ${status}\nsee log`, artifacts: [`src/${task.id}.ts`] });
    }
  };
  return { written, send, context, settle, finishStage, finishRunning };
}

describe('handoffs with the pipeline machine', () => {
  it('renders every handoff a real run asks for in the SPEC shape, in order', async () => {
    const root = mkdtempSync(join(tmpdir(), 'teamline-handoffs-'));
    made.push(root);
    const dir = join(root, 'handoffs');
    const run = startPipeline(dir);
    const tasks = [
      { id: 'schema', title: 'Schemas', description: 'zod schemas', acceptance: ['bodies validated'] },
      { id: 'routes', title: 'Routes', description: 'wire middleware', blockedBy: ['schema'], acceptance: ['400 on bad body'] },
    ];
    run.finishStage((id, attempt) => ({ type: 'plan.accepted', task_id: id, attempt, tasks, needsPrd: false }));
    await run.settle();
    run.finishRunning('completed');
    run.finishRunning('completed');
    await run.settle();
    run.finishStage((id, attempt) => ({ type: 'verify.result', task_id: id, attempt, verdict: 'fail', defects: [{ id: 'no-path', description: 'errors lack the field path', task: 'routes' }] }));
    await run.settle();
    await run.settle();
    run.send({ type: 'cancel.requested', force: false });
    run.finishRunning('interrupted');
    await run.settle();

    const titles = run.written.map((input) => `${input.index} ${input.stage} ${input.next}`);
    expect(titles).toEqual(['1 team-plan team-exec', '2 team-exec team-verify', '3 team-verify team-fix', '4 team-fix team-exec', '5 team-cancel end (cancelled)']);
    const found = readHandoffs(dir);
    expect(found.map((h) => h.file.slice(dir.length + 1))).toEqual(['01-team-plan.md', '02-team-exec.md', '03-team-verify.md', '04-team-fix.md', '05-team-cancel.md']);
    for (const handoff of found) expect(checkHandoffShape(handoff.text), handoff.text).toBeUndefined();
    expect(found[2]!.text).toContain('no-path (task routes): errors lack the field path');
    expect(found[3]!.text).toContain('fix loop 1 of 3: 1 fix task from 1 defect');
    expect(found[4]!.text.split('\n')[0]).toBe('## Handoff: team-exec → end (cancelled)');
    expect(found[4]!.text).toContain('fix-1-no-path#a1');
  });
});

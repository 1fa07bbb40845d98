// The pipeline machine: team-plan → team-prd → team-exec → team-verify → team-fix (→ ralph-review).
// Pure: its effects are the named actors runAttempt, runGates and writeHandoff, and the named
// action `record`, all bound by the runtime. Inputs arrive as events the runtime logged first.
import { enqueueActions, fromPromise, setup } from 'xstate';
import { isPassDone, needsDecision } from './schedule.js';
import { makeInitialContext } from './context.js';
import { beginCancel, nextAfterReview, nextAfterVerify, noteCancelledFinish, noteFixLoopsSpent, noteIterationsSpent, noteStageFailure, runningAttemptIds, stopRun, summarize } from './endings.js';
import * as steps from './steps.js';
import type { Step } from './steps.js';
import type { AttemptInput, HandoffInput, NewEvent, PipelineContext, PipelineEvent, PipelineInput, Stage } from './types.js';

type FinishEvent = Extract<PipelineEvent, { type: 'task.finished' }>;

// Applies a step: context changes, then records (written before any effect), then effects.
// Typed loosely: xstate's inline action types do not survive being built by a helper.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function apply<E extends PipelineEvent>(make: (context: PipelineContext, event: E) => Step): any {
  return enqueueActions(({ context, event, enqueue }: { context: PipelineContext; event: PipelineEvent; enqueue: any }) => {
    const step = make(context, event as E);
    if (step.context) enqueue.assign(step.context);
    for (const record of step.records ?? []) enqueue({ type: 'record', params: record } as never);
    for (const id of step.stop ?? []) enqueue.stopChild(id);
    for (const input of step.spawn ?? []) enqueue.spawnChild('runAttempt' as never, { id: steps.attemptActorId(input.taskId, input.attempt), input } as never);
  });
}

const handoffInput = (stage: Stage | 'team-cancel', next: string) => ({ context }: { context: PipelineContext }): HandoffInput => ({
  stage,
  next,
  index: context.handoffs.length + 1,
  context,
});

const addHandoff = apply((context, event: Extract<PipelineEvent, { type: 'handoff.written' }>) => ({
  context: { handoffs: [...context.handoffs, { stage: event.stage as Stage, path: event.path }] },
}));

const reenter = (target: string) => ({ 'runtime.resume': { target, reenter: true } });

// A stage run by one agent attempt: retried on failure up to maxTaskAttempts, then the run fails.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function agentStageWorking(stage: Stage, payload: Record<string, unknown>): any {
  return {
    entry: apply((c) => steps.startStageAttempt(c, stage)),
    on: {
      ...payload,
      'task.finished': [
        { guard: 'isStaleStageAttempt' },
        { guard: 'stageAttemptCompleted', target: 'handoff', actions: [apply(steps.finishStageAttempt), apply((c) => steps.completeStage(c, stage))] },
        { guard: 'stageAttemptRetryable', actions: apply(steps.retryStageAttempt) },
            { target: '#pipeline.failing', actions: [apply(steps.finishStageAttempt), apply(noteStageFailure)] },
      ],
      'runtime.resume': { actions: apply(steps.respawnRunning) },
    },
  };
}

export const pipelineMachine = setup({
  types: {
    context: {} as PipelineContext,
    events: {} as PipelineEvent,
    input: {} as PipelineInput,
  },
  actors: {
    // Bound by the runtime; these defaults do nothing, for folding and machine tests.
    runAttempt: fromPromise<void, AttemptInput>(async () => {}),
    runGates: fromPromise<void, { commands: string[]; iteration: number; pass: number }>(async () => {}),
    writeHandoff: fromPromise<void, HandoffInput>(async () => {}),
  },
  actions: {
    record: (_: unknown, _params: NewEvent) => {},
  },
  guards: {
    isStaleStageAttempt: ({ context, event }) => !steps.isCurrentStageAttempt(context, event as FinishEvent),
    stageAttemptCompleted: ({ context, event }) => steps.stageAttemptOutcome(context, event as FinishEvent) === 'completed',
    stageAttemptRetryable: ({ context, event }) => steps.stageAttemptOutcome(context, event as FinishEvent) === 'retry',
    needsPrd: ({ context }) => context.needsPrd,
    passDone: ({ context }) => isPassDone(context.tasks),
    needsDecision: ({ context }) => needsDecision(context.tasks),
    noGates: ({ context }) => context.gates.length === 0,
    verifyPassed: ({ context }) => context.verdict === 'pass',
    isRalph: ({ context }) => context.mode === 'ralph',
    fixLoopsLeft: ({ context }) => context.loop < context.limits.maxFixLoops,
    iterationsLeft: ({ context }) => context.mode === 'ralph' && context.iteration < context.limits.maxIterations,
    reviewApproved: ({ context }) => context.reviewReasons.length === 0 && context.verdict === 'pass',
    nothingRunning: ({ context }) => context.stageAttempt?.status !== 'running' && !Object.values(context.tasks).some((t) => t.status === 'running'),
    retryApplies: ({ context, event }) => steps.canRetryTask(context, event as Extract<PipelineEvent, { type: 'task.retry' }>),
    retryingInterrupted: ({ event }) => (event as Extract<PipelineEvent, { type: 'run.resumed' }>).retry_interrupted,
  },
}).createMachine({
  id: 'pipeline',
  context: ({ input }) => makeInitialContext(input),
  initial: 'plan',
  on: {
    'cancel.requested': { target: '.cancelling' },
    'run.resumed': { actions: apply(steps.resumeRun) },
  },
  states: {
    plan: {
      entry: apply((c) => steps.enterStage(c, 'team-plan')),
      initial: 'working',
      states: {
        working: agentStageWorking('team-plan', { 'plan.accepted': { actions: apply(steps.acceptPlan) } }),
        handoff: {
          invoke: { src: 'writeHandoff', input: ({ context }) => handoffInput('team-plan', context.needsPrd ? 'team-prd' : 'team-exec')({ context }) },
          on: {
            ...reenter('handoff'),
            'handoff.written': [
              { guard: 'needsPrd', target: '#pipeline.prd', actions: addHandoff },
              { target: '#pipeline.exec', actions: [addHandoff, apply(steps.skipPrd)] },
            ],
          },
        },
      },
    },
    prd: {
      entry: apply((c) => steps.enterStage(c, 'team-prd')),
      initial: 'working',
      states: {
        working: agentStageWorking('team-prd', { 'prd.accepted': { actions: apply(steps.acceptPrd) } }),
        handoff: {
          invoke: { src: 'writeHandoff', input: handoffInput('team-prd', 'team-exec') },
          on: { ...reenter('handoff'), 'handoff.written': { target: '#pipeline.exec', actions: addHandoff } },
        },
      },
    },
    exec: {
      entry: apply((c) => steps.enterStage(c, 'team-exec')),
      initial: 'working',
      states: {
        working: {
          entry: apply(steps.dispatch),
          always: [
            { guard: 'passDone', target: 'handoff', actions: apply((c) => steps.completeStage(c, 'team-exec')) },
            { guard: 'needsDecision', target: '#pipeline.stopped' },
          ],
          on: {
            'task.finished': { actions: [apply(steps.finishTask), apply(steps.dispatch)] },
            'task.retry': { actions: [apply(steps.retryTask), apply(steps.dispatch)] },
            'run.resumed': { actions: [apply(steps.resumeRun), apply(steps.dispatch)] },
            'runtime.resume': { actions: apply(steps.respawnRunning) },
          },
        },
        handoff: {
          invoke: { src: 'writeHandoff', input: handoffInput('team-exec', 'team-verify') },
          on: { ...reenter('handoff'), 'handoff.written': { target: '#pipeline.verify', actions: addHandoff } },
        },
      },
    },
    verify: {
      entry: apply((c) => steps.enterStage(c, 'team-verify')),
      initial: 'gates',
      states: {
        gates: {
          always: { guard: 'noGates', target: 'verifier' },
          invoke: { src: 'runGates', input: ({ context }) => ({ commands: context.gates, iteration: context.iteration, pass: context.loop + 1 }) },
          on: {
            ...reenter('gates'),
            'gates.result': { target: 'verifier', actions: apply((_c, e: Extract<PipelineEvent, { type: 'gates.result' }>) => ({ context: { gateResults: e.gates } })) },
          },
        },
        verifier: agentStageWorking('team-verify', {
          'verify.result': { actions: apply((_c, e: Extract<PipelineEvent, { type: 'verify.result' }>) => ({ context: { verdict: e.verdict, defects: e.defects } })) },
        }),
        handoff: {
          entry: apply(steps.concludeVerify),
          invoke: { src: 'writeHandoff', input: ({ context }) => handoffInput('team-verify', nextAfterVerify(context))({ context }) },
          on: {
            ...reenter('handoff'),
            'handoff.written': [
              { guard: 'verifyPassed', target: '#pipeline.afterVerifyPass', actions: addHandoff },
              { guard: 'fixLoopsLeft', target: '#pipeline.fix', actions: addHandoff },
              { guard: 'iterationsLeft', target: '#pipeline.nextIteration', actions: addHandoff },
              { target: '#pipeline.failed', actions: [addHandoff, apply(noteFixLoopsSpent)] },
            ],
          },
        },
      },
    },
    afterVerifyPass: {
      always: [{ guard: 'isRalph', target: 'review' }, { target: 'done' }],
    },
    review: {
      entry: apply((c) => steps.enterStage(c, 'ralph-review')),
      initial: 'working',
      states: {
        working: agentStageWorking('ralph-review', {
          'review.result': { actions: apply(steps.acceptReview) },
        }),
        handoff: {
          entry: apply(steps.concludeReview),
          invoke: { src: 'writeHandoff', input: ({ context }) => handoffInput('ralph-review', nextAfterReview(context))({ context }) },
          on: {
            ...reenter('handoff'),
            'handoff.written': [
              { guard: 'reviewApproved', target: '#pipeline.done', actions: addHandoff },
              { guard: 'fixLoopsLeft', target: '#pipeline.fix', actions: addHandoff },
              { guard: 'iterationsLeft', target: '#pipeline.nextIteration', actions: addHandoff },
              { target: '#pipeline.failed', actions: [addHandoff, apply(noteIterationsSpent)] },
            ],
          },
        },
      },
    },
    fix: {
      entry: [apply((c) => steps.enterStage(c, 'team-fix')), apply(steps.startFixLoop)],
      initial: 'handoff',
      states: {
        handoff: {
          invoke: { src: 'writeHandoff', input: handoffInput('team-fix', 'team-exec') },
          on: { ...reenter('handoff'), 'handoff.written': { target: '#pipeline.exec', actions: [addHandoff, apply((c) => steps.completeStage(c, 'team-fix'))] } },
        },
      },
    },
    nextIteration: {
      always: { target: 'plan', actions: apply((c) => steps.startNextIteration(c, c.verdict === 'pass' ? 'rejected by the architect' : 'verify failed with fix loops spent')) },
    },
    stopped: {
      entry: apply(stopRun),
      on: {
        'task.retry': { guard: 'retryApplies', target: 'exec', actions: apply(steps.retryTask) },
        'run.resumed': { guard: 'retryingInterrupted', target: 'exec', actions: apply(steps.resumeRun) },
      },
    },
    failing: {
      invoke: { src: 'writeHandoff', input: ({ context }) => handoffInput(context.endingStage ?? 'team-plan', 'end (failed)')({ context }) },
      on: { ...reenter('failing'), 'handoff.written': { target: 'failed', actions: addHandoff } },
    },
    cancelling: {
      entry: apply(beginCancel),
      always: { guard: 'nothingRunning', target: 'cancelHandoff' },
      on: {
        // Asked again (or by a new orchestrator that re-adopted the workers): stop them all again.
        'cancel.requested': { actions: apply((c, e: Extract<PipelineEvent, { type: 'cancel.requested' }>) => ({ context: { cancelForce: c.cancelForce || e.force }, stop: runningAttemptIds(c) })) },
        'task.finished': { actions: apply(noteCancelledFinish) },
        'runtime.resume': { actions: apply(steps.respawnRunning) },
      },
    },
    cancelHandoff: {
      invoke: { src: 'writeHandoff', input: ({ context }) => handoffInput('team-cancel', 'end (cancelled)')({ context }) },
      on: { ...reenter('cancelHandoff'), 'cancel.requested': {}, 'handoff.written': { target: 'cancelled', actions: addHandoff } },
    },
    done: {
      type: 'final',
      entry: apply((c) => ({ records: [{ event: 'run_completed', summary: summarize(c, 'completed') }] })),
    },
    failed: {
      type: 'final',
      entry: apply((c) => ({ records: [{ event: 'run_failed', reason: c.reason || summarize(c, 'failed') }] })),
    },
    cancelled: {
      type: 'final',
      entry: apply((c) => ({ records: [{ event: 'run_cancelled', reason: c.reason }] })),
    },
  },
});

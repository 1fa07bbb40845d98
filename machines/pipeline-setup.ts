// The pipeline machine's setup: its types, the effects the runtime binds, and every named guard
// and action. Each action applies one pure step: context changes, then records, then effects.
import { assertEvent, enqueueActions, fromPromise, setup } from 'xstate';
import { noWorkerLeft } from './schedule.js';
import { isPassDone, needsDecision } from './task-index.js';
import { afterRejection, beginCancel, noteCancelledFinish, noteFixLoopsSpent, noteIterationsSpent, noteNoWorkerLeft, noteNotRetryable, noteStageFailure, runningAttemptIds, stopRun, stopRunning, summarize } from './endings.js';
import * as steps from './steps.js';
import * as verify from './verify-steps.js';
import { scaleWorkers } from './scale.js';
import type { Step } from './steps.js';
import * as rate from './rate-steps.js';
import { budgetStopsRun, holdForBudget, holdForQuota, isBudgetStoppedStageFinish, isStageHeldForBudget, raiseBudget, releaseBudget } from './budget-steps.js';
import type { AttemptInput, HandoffInput, NewEvent, PipelineContext, PipelineEvent, PipelineInput, Stage } from './types.js';

type FinishEvent = Extract<PipelineEvent, { type: 'task.finished' }>;
type ThrottledEvent = Extract<PipelineEvent, { type: 'attempt.throttled' }>;

// The task.finished event an action was taken on.
function finishEvent(event: PipelineEvent): FinishEvent {
  assertEvent(event, 'task.finished');
  return event;
}

// What a step's effects need of xstate's enqueue: context changes, records, stops and spawns.
interface StepEnqueue {
  (action: { type: 'record'; params: NewEvent }): void;
  assign(values: Partial<PipelineContext>): void;
  stopChild(id: string): void;
  spawnChild(src: 'runAttempt', options: { id: string; input: AttemptInput }): void;
}

// Applies a step: context changes, then records (written before any effect), then effects.
function applyStep(enqueue: StepEnqueue, step: Step): void {
  if (step.context) enqueue.assign(step.context);
  for (const record of step.records ?? []) enqueue({ type: 'record', params: record });
  for (const id of step.stop ?? []) enqueue.stopChild(id);
  for (const input of step.spawn ?? []) enqueue.spawnChild('runAttempt', { id: steps.attemptActorId(input.taskId, input.attempt), input });
}

type StageParams = { stage: Stage };

// The parameters of each step action (undefined: none).
type StepActions = {
  enterStage: StageParams;
  completeStage: StageParams;
  startStageAttempt: StageParams;
  finishStageAttempt: undefined;
  retryStageAttempt: undefined;
  noteStageFailure: undefined;
  noteNotRetryable: undefined;
  noteNoWorkerLeft: undefined;
  stopRunning: undefined;
  respawnRunning: undefined;
  acceptPlan: undefined;
  acceptPrd: undefined;
  skipPrd: undefined;
  addHandoff: undefined;
  dispatch: undefined;
  finishTask: undefined;
  retryTask: undefined;
  noteMergeFailure: undefined;
  noteReserved: undefined;
  resumeRun: undefined;
  acceptGates: undefined;
  acceptVerify: undefined;
  concludeVerify: undefined;
  acceptChanges: undefined;
  startVerifyAttempts: undefined;
  acceptReviewerResult: undefined;
  finishReviewer: undefined;
  scaleWorkers: undefined;
  startExplore: undefined;
  startCritic: undefined;
  startPlanArchitect: undefined;
  acceptArchitectNotes: undefined;
  acceptObjections: undefined;
  noteCriticFailed: undefined;
  acceptFindings: undefined;
  noteExploreFailed: undefined;
  acceptReview: undefined;
  concludeReview: undefined;
  noteFixLoopsSpent: undefined;
  noteIterationsSpent: undefined;
  startFixLoop: undefined;
  startNextIteration: undefined;
  stopRun: undefined;
  beginCancel: undefined;
  repeatCancel: undefined;
  noteCancelledFinish: undefined;
  recordCompleted: undefined;
  recordFailed: undefined;
  recordCancelled: undefined;
  noteThrottle: undefined;
  noteRetrying: undefined;
  noteGiveUp: undefined;
  endBackoff: undefined;
  requeueThrottled: undefined;
  noteSuccess: undefined;
  holdStageAttempt: undefined;
  restartStageAttempt: undefined;
  holdForBudget: undefined;
  holdForQuota: undefined;
  raiseBudget: undefined;
  releaseBudget: undefined;
};

// The setup the pipeline machine is made from.
export const pipelineSetup = setup({
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
    scanChanges: fromPromise<void, { iteration: number; pass: number }>(async () => {}),
  },
  actions: {
    record: (_: unknown, _params: NewEvent) => {},
  },
  guards: {
    isStaleStageAttempt: ({ context, event }) => !steps.isCurrentStageAttempt(context, event as FinishEvent),
    stageAttemptCompleted: ({ context, event }) => steps.stageAttemptOutcome(context, event as FinishEvent) === 'completed',
    stageAttemptRetryable: ({ context, event }) => steps.stageAttemptOutcome(context, event as FinishEvent) === 'retry',
    notRetryable: ({ context, event }) => steps.isFatalFinish(context, event as FinishEvent),
    noWorkerLeft: ({ context }) => noWorkerLeft(context),
    needsPrd: ({ context }) => context.needsPrd,
    passDone: ({ context }) => isPassDone(context.taskIndex),
    needsDecision: ({ context }) => needsDecision(context.taskIndex),
    noGates: ({ context }) => context.gates.length === 0,
    verifyPassed: ({ context }) => context.verdict === 'pass',
    isRalph: ({ context }) => context.mode === 'ralph',
    fixLoopsLeft: ({ context }) => afterRejection(context) === 'fix',
    iterationsLeft: ({ context }) => afterRejection(context) === 'next-iteration',
    reviewApproved: ({ context }) => context.reviewReasons.length === 0 && context.verdict === 'pass',
    nothingRunning: ({ context }) => context.stageAttempt?.status !== 'running' && context.taskIndex.counts.running === 0 && !context.reviewers.some((r) => r.status === 'running'),
    noRouting: ({ context }) => context.routing === undefined,
    noExplore: ({ context }) => context.routing?.explore !== true,
    noCritic: ({ context }) => context.routing?.critic !== true,
    noPlanArchitect: ({ context }) => !steps.wantsPlanArchitect(context),
    verifyDone: ({ context }) => verify.isVerifyDone(context),
    reviewersRunning: ({ context }) => context.reviewers.some((r) => r.status === 'running'),
    isReviewerFinish: ({ context, event }) => verify.findReviewer(context, event as FinishEvent) !== undefined,
    isReviewerResult: ({ context, event }) => context.reviewers.some((r) => r.id === (event as Extract<PipelineEvent, { type: 'verify.result' }>).task_id),
    retryApplies: ({ context, event }) => steps.canRetryTask(context, event as Extract<PipelineEvent, { type: 'task.retry' }>),
    retryingInterrupted: ({ event }) => (event as Extract<PipelineEvent, { type: 'run.resumed' }>).retry_interrupted,
    giveUp: ({ context, event }) => rate.isGiveUp(context, event as ThrottledEvent),
    throttledFinish: ({ context, event }) => rate.isThrottledFinish(context, event as FinishEvent),
    throttledStageFinish: ({ context, event }) => rate.isThrottledStageFinish(context, event as FinishEvent),
    heldStageAgent: ({ context, event }) => !context.budgetHold && rate.isHeldStageAgent(context, (event as Extract<PipelineEvent, { type: 'backoff.ended' }>).agent),
    budgetStoppedStageFinish: ({ context, event }) => isBudgetStoppedStageFinish(context, event as FinishEvent),
    stageHeldForBudget: ({ context }) => isStageHeldForBudget(context) && !context.throttle?.[context.agents[context.stageAttempt!.role] ?? context.defaultAgent]?.waiting,
    budgetStopsRun: ({ context }) => budgetStopsRun(context),
  },
}).extend<StepActions>({
  actions: {
      enterStage: enqueueActions(({ context, enqueue }, params: { stage: Stage }) => applyStep(enqueue, steps.enterStage(context, params.stage))),
      completeStage: enqueueActions(({ context, enqueue }, params: { stage: Stage }) => applyStep(enqueue, steps.completeStage(context, params.stage))),
      startStageAttempt: enqueueActions(({ context, enqueue }, params: { stage: Stage }) => applyStep(enqueue, steps.startStageAttempt(context, params.stage))),
      finishStageAttempt: enqueueActions(({ context, event, enqueue }) => applyStep(enqueue, steps.finishStageAttempt(context, finishEvent(event)))),
      retryStageAttempt: enqueueActions(({ context, event, enqueue }) => applyStep(enqueue, steps.retryStageAttempt(context, finishEvent(event)))),
      noteStageFailure: enqueueActions(({ context, event, enqueue }) => applyStep(enqueue, noteStageFailure(context, finishEvent(event)))),
      noteNotRetryable: enqueueActions(({ context, event, enqueue }) => applyStep(enqueue, noteNotRetryable(context, finishEvent(event)))),
      noteNoWorkerLeft: enqueueActions(({ context, enqueue }) => applyStep(enqueue, noteNoWorkerLeft(context))),
      stopRunning: enqueueActions(({ context, enqueue }) => applyStep(enqueue, stopRunning(context))),
      respawnRunning: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'runtime.resume');
        applyStep(enqueue, steps.respawnRunning(context, event));
      }),
      acceptPlan: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'plan.accepted');
        applyStep(enqueue, steps.acceptPlan(context, event));
      }),
      acceptPrd: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'prd.accepted');
        applyStep(enqueue, steps.acceptPrd(context, event));
      }),
      skipPrd: enqueueActions(({ context, enqueue }) => applyStep(enqueue, steps.skipPrd(context))),
      addHandoff: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'handoff.written');
        applyStep(enqueue, { context: { handoffs: [...context.handoffs, { stage: event.stage as Stage, path: event.path }] } });
      }),
      dispatch: enqueueActions(({ context, enqueue }) => applyStep(enqueue, steps.dispatch(context))),
      finishTask: enqueueActions(({ context, event, enqueue }) => applyStep(enqueue, steps.finishTask(context, finishEvent(event)))),
      retryTask: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'task.retry');
        applyStep(enqueue, steps.retryTask(context, event));
      }),
      noteReserved: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'files.reserved');
        applyStep(enqueue, steps.noteReserved(context, event));
      }),
      noteMergeFailure: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'merge.failed');
        applyStep(enqueue, steps.noteMergeFailure(context, event));
      }),
      resumeRun: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'run.resumed');
        applyStep(enqueue, steps.resumeRun(context, event));
      }),
      acceptGates: enqueueActions(({ event, enqueue }) => {
        assertEvent(event, 'gates.result');
        applyStep(enqueue, { context: { gateResults: event.gates } });
      }),
      acceptVerify: enqueueActions(({ event, enqueue }) => {
        assertEvent(event, 'verify.result');
        applyStep(enqueue, { context: { verdict: event.verdict, defects: event.defects } });
      }),
      concludeVerify: enqueueActions(({ context, enqueue }) => applyStep(enqueue, verify.concludeVerify(context))),
      acceptChanges: enqueueActions(({ event, enqueue }) => {
        assertEvent(event, 'changes.scanned');
        applyStep(enqueue, verify.acceptChanges(event));
      }),
      startVerifyAttempts: enqueueActions(({ context, enqueue }) => applyStep(enqueue, verify.startVerifyAttempts(context))),
      acceptReviewerResult: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'verify.result');
        applyStep(enqueue, verify.acceptReview(context, event));
      }),
      startPlanArchitect: enqueueActions(({ context, enqueue }) => applyStep(enqueue, steps.startPlanArchitect(context))),
      acceptArchitectNotes: enqueueActions(({ event, enqueue }) => {
        assertEvent(event, 'architect.noted');
        applyStep(enqueue, { context: { architectNotes: { notes: event.notes, risks: event.risks } } });
      }),
      startCritic: enqueueActions(({ context, enqueue }) => applyStep(enqueue, steps.startCritic(context))),
      acceptObjections: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'critic.objected');
        applyStep(enqueue, steps.acceptObjections(context, event));
      }),
      noteCriticFailed: enqueueActions(({ context, enqueue }) => applyStep(enqueue, steps.noteCriticFailed(context))),
      startExplore: enqueueActions(({ context, enqueue }) => applyStep(enqueue, steps.startExplore(context))),
      acceptFindings: enqueueActions(({ event, enqueue }) => {
        assertEvent(event, 'explore.found');
        applyStep(enqueue, { context: { findings: event.findings } });
      }),
      noteExploreFailed: enqueueActions(({ context, enqueue }) => applyStep(enqueue, steps.noteExploreFailed(context))),
      scaleWorkers: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'workers.scaled');
        applyStep(enqueue, scaleWorkers(context, event));
      }),
      finishReviewer: enqueueActions(({ context, event, enqueue }) => applyStep(enqueue, verify.finishReviewer(context, finishEvent(event)))),
      acceptReview: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'review.result');
        applyStep(enqueue, steps.acceptReview(context, event));
      }),
      concludeReview: enqueueActions(({ context, enqueue }) => applyStep(enqueue, steps.concludeReview(context))),
      noteFixLoopsSpent: enqueueActions(({ context, enqueue }) => applyStep(enqueue, noteFixLoopsSpent(context))),
      noteIterationsSpent: enqueueActions(({ context, enqueue }) => applyStep(enqueue, noteIterationsSpent(context))),
      startFixLoop: enqueueActions(({ context, enqueue }) => applyStep(enqueue, steps.startFixLoop(context))),
      startNextIteration: enqueueActions(({ context, enqueue }) =>
        applyStep(enqueue, steps.startNextIteration(context, context.verdict === 'pass' ? 'rejected by the architect' : 'verify failed with fix loops spent')),
      ),
      stopRun: enqueueActions(({ context, enqueue }) => applyStep(enqueue, stopRun(context))),
      beginCancel: enqueueActions(({ context, event, enqueue }) => applyStep(enqueue, beginCancel(context, event))),
      // Asked again (or by a new orchestrator that re-adopted the workers): stop them all again.
      repeatCancel: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'cancel.requested');
        applyStep(enqueue, { context: { cancelForce: context.cancelForce || event.force }, stop: runningAttemptIds(context) });
      }),
      noteCancelledFinish: enqueueActions(({ context, event, enqueue }) => applyStep(enqueue, noteCancelledFinish(context, finishEvent(event)))),
      recordCompleted: enqueueActions(({ context, enqueue }) => applyStep(enqueue, { records: [{ event: 'run_completed', summary: summarize(context, 'completed') }] })),
      recordFailed: enqueueActions(({ context, enqueue }) => applyStep(enqueue, { records: [{ event: 'run_failed', reason: context.reason || summarize(context, 'failed') }] })),
      recordCancelled: enqueueActions(({ context, enqueue }) => applyStep(enqueue, { records: [{ event: 'run_cancelled', reason: context.reason }] })),
      noteThrottle: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'attempt.throttled');
        applyStep(enqueue, rate.noteThrottle(context, event));
      }),
      noteRetrying: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'attempt.retrying');
        applyStep(enqueue, rate.noteRetrying(context, event));
      }),
      noteGiveUp: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'attempt.throttled');
        applyStep(enqueue, rate.noteGiveUp(context, event));
      }),
      endBackoff: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'backoff.ended');
        applyStep(enqueue, rate.endBackoff(context, event.agent));
      }),
      requeueThrottled: enqueueActions(({ context, event, enqueue }) => applyStep(enqueue, rate.requeueThrottled(context, finishEvent(event)))),
      noteSuccess: enqueueActions(({ context, event, enqueue }) => applyStep(enqueue, rate.noteSuccess(context, finishEvent(event)))),
      holdStageAttempt: enqueueActions(({ context, event, enqueue }) => applyStep(enqueue, rate.holdStageAttempt(context, finishEvent(event)))),
      restartStageAttempt: enqueueActions(({ context, enqueue }) => applyStep(enqueue, rate.restartStageAttempt(context))),
      holdForBudget: enqueueActions(({ context, event, enqueue }) => {
        assertEvent(event, 'budget.exceeded');
        applyStep(enqueue, holdForBudget(context, event));
      }),
      holdForQuota: enqueueActions(({ event, enqueue }) => {
        assertEvent(event, 'quota.reached');
        applyStep(enqueue, holdForQuota(event));
      }),
      raiseBudget: enqueueActions(({ context, enqueue }) => applyStep(enqueue, raiseBudget(context))),
      releaseBudget: enqueueActions(({ enqueue }) => applyStep(enqueue, releaseBudget())),
  },
});

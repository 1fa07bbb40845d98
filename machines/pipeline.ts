// The pipeline machine: team-plan → team-prd → team-exec → team-verify → team-fix (→ ralph-review).
// Pure: its effects are the named actors runAttempt, runGates and writeHandoff, and the named
// action `record`, all bound by the runtime; its steps are named in pipeline-setup.ts. Inputs arrive as events the runtime logged first.
import { makeInitialContext } from './context.js';
import { nextAfterReview, nextAfterVerify } from './endings.js';
import { pipelineSetup } from './pipeline-setup.js';
import type { HandoffInput, PipelineContext, Stage } from './types.js';

const handoffInput = (stage: Stage | 'team-cancel', next: string) => ({ context }: { context: PipelineContext }): HandoffInput => ({
  stage,
  next,
  index: context.handoffs.length + 1,
  context,
});

const reenter = (target: string) => ({ 'runtime.resume': { target, reenter: true } });

// A stage run by one agent attempt: retried on failure up to maxTaskAttempts, then the run fails.
// Its conclusion is drawn on the way to the handoff, never on entering it: a takeover re-enters
// the handoff to write it again, and an entry step would run twice.
// `then`: a state of the stage that follows the agent's attempt (the critic after the analyst), which completes the stage itself.
function agentStageWorking(stage: Stage, payload: { [event: string]: { actions: 'acceptPlan' | 'acceptPrd' | 'acceptReview' } }, conclude?: 'concludeReview', then?: string) {
  const completed = then ? (['noteSuccess', 'finishStageAttempt'] as const) : (['noteSuccess', 'finishStageAttempt', { type: 'completeStage', params: { stage } }, ...(conclude ? [conclude] : [])] as const);
  return pipelineSetup.createStateConfig({
    entry: { type: 'startStageAttempt', params: { stage } },
    on: {
      ...payload,
      'task.finished': [
        { guard: 'isStaleStageAttempt' },
        ...HELD_STAGE_FINISH,
        { guard: 'notRetryable', target: '#pipeline.stopping', actions: ['finishStageAttempt', 'noteNotRetryable'] },
        { guard: 'stageAttemptCompleted', target: then ?? 'handoff', actions: completed },
        { guard: 'stageAttemptRetryable', actions: 'retryStageAttempt' },
        { target: '#pipeline.failing', actions: ['finishStageAttempt', 'noteStageFailure'] },
      ],
      'runtime.resume': { actions: 'respawnRunning' },
      ...STAGE_HOLDS,
    },
  });
}

// A stage attempt that ended rate-limited waits out its back-off; one the budget stopped waits for a raised budget (issue 29).
const HELD_STAGE_FINISH = [
  { guard: 'throttledStageFinish', actions: 'holdStageAttempt' },
  { guard: 'budgetStoppedStageFinish', actions: ['holdStageAttempt', 'stopRun'] },
] as const;

// A rate limit past team.rateLimitGiveUpMs fails the run; any other is noted (issue 29).
const THROTTLE_GIVE_UP = {
  'attempt.throttled': [{ guard: 'giveUp', target: '#pipeline.stopping', actions: ['noteGiveUp', 'noteThrottle'] }, { actions: 'noteThrottle' }],
} as const;

// What ends the hold of a stage attempt: its agent's back-off, a raised budget.
const STAGE_HOLDS = {
  ...THROTTLE_GIVE_UP,
  'backoff.ended': [{ guard: 'heldStageAgent', actions: ['endBackoff', 'restartStageAttempt'] }, { actions: 'endBackoff' }],
  'budget.raised': [{ guard: 'stageHeldForBudget', actions: ['releaseBudget', 'restartStageAttempt'] }, { actions: 'releaseBudget' }],
  'quota.cleared': [{ guard: 'stageHeldForBudget', actions: ['releaseBudget', 'restartStageAttempt'] }, { actions: 'releaseBudget' }],
} as const;

// A stage's optional agent (explore, the plan's architect, the critic): skipped when its guard
// says so; its attempt retried like any stage attempt, and the stage goes on to `next` whether it
// completed or failed every attempt (its failure is noted, never the run's).
function optionalAgent(o: { entry: 'startExplore' | 'startPlanArchitect' | 'startCritic'; skip: 'noExplore' | 'noPlanArchitect' | 'noCritic'; payload: Record<string, { actions: 'acceptFindings' | 'acceptArchitectNotes' | 'acceptObjections' }>; next: string; complete?: Stage; failed?: 'noteExploreFailed' | 'noteCriticFailed' }) {
  const complete = o.complete ? ([{ type: 'completeStage', params: { stage: o.complete } }] as const) : ([] as const);
  return pipelineSetup.createStateConfig({
    entry: o.entry,
    always: { guard: o.skip, target: o.next, actions: [...complete] },
    on: {
      ...o.payload,
      'task.finished': [
        { guard: 'isStaleStageAttempt' },
        ...HELD_STAGE_FINISH,
        { guard: 'notRetryable', target: '#pipeline.stopping', actions: ['finishStageAttempt', 'noteNotRetryable'] },
        { guard: 'stageAttemptCompleted', target: o.next, actions: ['finishStageAttempt', ...complete] },
        { guard: 'stageAttemptRetryable', actions: 'retryStageAttempt' },
        { target: o.next, actions: ['finishStageAttempt', ...(o.failed ? [o.failed] : []), ...complete] },
      ],
      'runtime.resume': { actions: 'respawnRunning' },
      ...STAGE_HOLDS,
    },
  });
}

export const pipelineMachine = pipelineSetup.createMachine({
  id: 'pipeline',
  context: ({ input }) => makeInitialContext(input),
  initial: 'plan',
  on: {
    'cancel.requested': { target: '.cancelling' },
    'run.resumed': { actions: 'resumeRun' },
    'workers.scaled': { actions: 'scaleWorkers' },
    'attempt.throttled': { actions: 'noteThrottle' },
    'attempt.retrying': { actions: 'noteRetrying' },
    'backoff.ended': { actions: 'endBackoff' },
    'budget.exceeded': { actions: 'holdForBudget' },
    'budget.raised': { actions: 'releaseBudget' },
    'quota.reached': { actions: 'holdForQuota' },
    'quota.cleared': { actions: 'releaseBudget' },
  },
  states: {
    plan: {
      entry: { type: 'enterStage', params: { stage: 'team-plan' } },
      initial: 'explore',
      states: {
        // With routing.explore, a read-only explore agent first; its findings go to the planner.
        explore: optionalAgent({ entry: 'startExplore', skip: 'noExplore', payload: { 'explore.found': { actions: 'acceptFindings' } }, next: 'working', failed: 'noteExploreFailed' }),
        working: agentStageWorking('team-plan', { 'plan.accepted': { actions: 'acceptPlan' } }, undefined, 'architect'),
        // An architect reviews the plan's boundaries when the config or the planner asks; else the stage completes at once.
        architect: optionalAgent({ entry: 'startPlanArchitect', skip: 'noPlanArchitect', payload: { 'architect.noted': { actions: 'acceptArchitectNotes' } }, next: 'handoff', complete: 'team-plan' }),
        handoff: {
          invoke: { src: 'writeHandoff', input: ({ context }) => handoffInput('team-plan', context.needsPrd ? 'team-prd' : 'team-exec')({ context }) },
          on: {
            ...reenter('handoff'),
            'handoff.written': [
              { guard: 'needsPrd', target: '#pipeline.prd', actions: 'addHandoff' },
              { target: '#pipeline.exec', actions: ['addHandoff', 'skipPrd'] },
            ],
          },
        },
      },
    },
    prd: {
      entry: { type: 'enterStage', params: { stage: 'team-prd' } },
      initial: 'working',
      states: {
        working: agentStageWorking('team-prd', { 'prd.accepted': { actions: 'acceptPrd' } }, undefined, 'critic'),
        // With routing.critic, a critic challenges the scope; without, the stage completes at once.
        critic: optionalAgent({ entry: 'startCritic', skip: 'noCritic', payload: { 'critic.objected': { actions: 'acceptObjections' } }, next: 'handoff', complete: 'team-prd', failed: 'noteCriticFailed' }),
        handoff: {
          invoke: { src: 'writeHandoff', input: handoffInput('team-prd', 'team-exec') },
          on: { ...reenter('handoff'), 'handoff.written': { target: '#pipeline.exec', actions: 'addHandoff' } },
        },
      },
    },
    exec: {
      entry: { type: 'enterStage', params: { stage: 'team-exec' } },
      initial: 'working',
      states: {
        working: {
          entry: 'dispatch',
          always: [
            { guard: 'noWorkerLeft', target: '#pipeline.stopping', actions: 'noteNoWorkerLeft' },
            { guard: 'budgetStopsRun', target: '#pipeline.stopped' },
            { guard: 'passDone', target: 'handoff', actions: { type: 'completeStage', params: { stage: 'team-exec' } } },
            { guard: 'needsDecision', target: '#pipeline.stopped' },
          ],
          on: {
            'task.finished': [
              { guard: 'notRetryable', target: '#pipeline.stopping', actions: ['finishTask', 'noteNotRetryable'] },
              { guard: 'throttledFinish', actions: ['requeueThrottled', 'dispatch'] },
              { actions: ['noteSuccess', 'finishTask', 'dispatch'] },
            ],
            'task.retry': { actions: ['retryTask', 'dispatch'] },
            'merge.failed': { actions: 'noteMergeFailure' },
            'files.reserved': { actions: 'noteReserved' },
            'run.resumed': { actions: ['resumeRun', 'dispatch'] },
            'workers.scaled': { actions: ['scaleWorkers', 'dispatch'] },
            'runtime.resume': { actions: 'respawnRunning' },
            ...THROTTLE_GIVE_UP,
            'backoff.ended': { actions: ['endBackoff', 'dispatch'] },
            'budget.raised': { actions: ['releaseBudget', 'dispatch'] },
            'quota.cleared': { actions: ['releaseBudget', 'dispatch'] },
          },
        },
        handoff: {
          invoke: { src: 'writeHandoff', input: handoffInput('team-exec', 'team-verify') },
          on: { ...reenter('handoff'), 'handoff.written': { target: '#pipeline.verify', actions: 'addHandoff' } },
        },
      },
    },
    verify: {
      entry: { type: 'enterStage', params: { stage: 'team-verify' } },
      initial: 'gates',
      states: {
        gates: {
          always: { guard: 'noGates', target: 'scan' },
          invoke: { src: 'runGates', input: ({ context }) => ({ commands: context.gates, iteration: context.iteration, pass: context.loop + 1 }) },
          on: {
            ...reenter('gates'),
            'gates.result': { target: 'scan', actions: 'acceptGates' },
          },
        },
        // With routing, the run's changes are read before the reviewers are chosen.
        scan: {
          always: { guard: 'noRouting', target: 'verifier' },
          invoke: { src: 'scanChanges', input: ({ context }) => ({ iteration: context.iteration, pass: context.loop + 1 }) },
          on: { ...reenter('scan'), 'changes.scanned': { target: 'verifier', actions: 'acceptChanges' } },
        },
        // The verifier and the reviewers at once; the stage completes when the verifier has and no reviewer runs.
        verifier: {
          entry: 'startVerifyAttempts',
          always: { guard: 'verifyDone', target: 'handoff', actions: [{ type: 'completeStage', params: { stage: 'team-verify' } }, 'concludeVerify'] },
          on: {
            'verify.result': [{ guard: 'isReviewerResult', actions: 'acceptReviewerResult' }, { actions: 'acceptVerify' }],
            'task.finished': [
              { guard: 'isReviewerFinish', actions: 'finishReviewer' },
              { guard: 'isStaleStageAttempt' },
              ...HELD_STAGE_FINISH,
              { guard: 'notRetryable', target: '#pipeline.stopping', actions: ['finishStageAttempt', 'noteNotRetryable'] },
              { guard: 'stageAttemptCompleted', actions: ['noteSuccess', 'finishStageAttempt'] },
              { guard: 'stageAttemptRetryable', actions: 'retryStageAttempt' },
              { guard: 'reviewersRunning', target: '#pipeline.stopping', actions: ['finishStageAttempt', 'noteStageFailure'] },
              { target: '#pipeline.failing', actions: ['finishStageAttempt', 'noteStageFailure'] },
            ],
            'runtime.resume': { actions: 'respawnRunning' },
            ...STAGE_HOLDS,
          },
        },
        handoff: {
          invoke: { src: 'writeHandoff', input: ({ context }) => handoffInput('team-verify', nextAfterVerify(context))({ context }) },
          on: {
            ...reenter('handoff'),
            'handoff.written': [
              { guard: 'verifyPassed', target: '#pipeline.afterVerifyPass', actions: 'addHandoff' },
              { guard: 'fixLoopsLeft', target: '#pipeline.fix', actions: 'addHandoff' },
              { guard: 'iterationsLeft', target: '#pipeline.nextIteration', actions: 'addHandoff' },
              { target: '#pipeline.failed', actions: ['addHandoff', 'noteFixLoopsSpent'] },
            ],
          },
        },
      },
    },
    afterVerifyPass: {
      always: [{ guard: 'isRalph', target: 'review' }, { target: 'done' }],
    },
    review: {
      entry: { type: 'enterStage', params: { stage: 'ralph-review' } },
      initial: 'working',
      states: {
        working: agentStageWorking('ralph-review', {
          'review.result': { actions: 'acceptReview' },
        }, 'concludeReview'),
        handoff: {
          invoke: { src: 'writeHandoff', input: ({ context }) => handoffInput('ralph-review', nextAfterReview(context))({ context }) },
          on: {
            ...reenter('handoff'),
            'handoff.written': [
              { guard: 'reviewApproved', target: '#pipeline.done', actions: 'addHandoff' },
              { guard: 'fixLoopsLeft', target: '#pipeline.fix', actions: 'addHandoff' },
              { guard: 'iterationsLeft', target: '#pipeline.nextIteration', actions: 'addHandoff' },
              { target: '#pipeline.failed', actions: ['addHandoff', 'noteIterationsSpent'] },
            ],
          },
        },
      },
    },
    fix: {
      entry: [{ type: 'enterStage', params: { stage: 'team-fix' } }, 'startFixLoop'],
      initial: 'handoff',
      states: {
        handoff: {
          invoke: { src: 'writeHandoff', input: handoffInput('team-fix', 'team-exec') },
          on: { ...reenter('handoff'), 'handoff.written': { target: '#pipeline.exec', actions: ['addHandoff', { type: 'completeStage', params: { stage: 'team-fix' } }] } },
        },
      },
    },
    nextIteration: {
      always: { target: 'plan', actions: 'startNextIteration' },
    },
    stopped: {
      entry: 'stopRun',
      on: {
        'task.retry': { guard: 'retryApplies', target: 'exec', actions: 'retryTask' },
        'run.resumed': { guard: 'retryingInterrupted', target: 'exec', actions: 'resumeRun' },
        'budget.raised': { target: 'exec', actions: 'raiseBudget' },
        'quota.cleared': { target: 'exec', actions: 'raiseBudget' },
      },
    },
    // The run fails on its own (not retryable, no worker left): running attempts stop first.
    stopping: {
      entry: 'stopRunning',
      always: { guard: 'nothingRunning', target: 'failing' },
      on: {
        'task.finished': { actions: 'noteCancelledFinish' },
        'runtime.resume': { actions: ['respawnRunning', 'stopRunning'] },
      },
    },
    failing: {
      invoke: { src: 'writeHandoff', input: ({ context }) => handoffInput(context.endingStage ?? 'team-plan', 'end (failed)')({ context }) },
      on: { ...reenter('failing'), 'handoff.written': { target: 'failed', actions: 'addHandoff' } },
    },
    cancelling: {
      entry: 'beginCancel',
      always: { guard: 'nothingRunning', target: 'cancelHandoff' },
      on: {
        'cancel.requested': { actions: 'repeatCancel' },
        'task.finished': { actions: 'noteCancelledFinish' },
        'runtime.resume': { actions: 'respawnRunning' },
      },
    },
    cancelHandoff: {
      invoke: { src: 'writeHandoff', input: ({ context }) => handoffInput('team-cancel', 'end (cancelled)')({ context }) },
      on: { ...reenter('cancelHandoff'), 'cancel.requested': {}, 'handoff.written': { target: 'cancelled', actions: 'addHandoff' } },
    },
    done: {
      type: 'final',
      entry: 'recordCompleted',
    },
    failed: {
      type: 'final',
      entry: 'recordFailed',
    },
    cancelled: {
      type: 'final',
      entry: 'recordCancelled',
    },
  },
});

// The context a run starts with: its input, and nothing done yet.
import { emptyTaskIndex } from './task-index.js';
import type { PipelineContext, PipelineInput } from './types.js';

// The initial context of the pipeline machine.
export function makeInitialContext(input: PipelineInput): PipelineContext {
  return {
    ...input,
    stage: 'team-plan',
    iteration: 1,
    loop: 0,
    handoffs: [],
    tasks: {},
    taskIndex: emptyTaskIndex(),
    order: [],
    stageAttempt: null,
    stageEarlier: [],
    needsPrd: false,
    gateResults: [],
    verdict: null,
    defects: [],
    reviewReasons: [],
    workerFailures: {},
    retryInterrupted: false,
    iterations: [],
    reason: '',
    endingStage: null,
    cancelForce: false,
    noted: [],
    reviewers: [],
    reviews: {},
    changes: null,
    architectural: false,
    decisions: [],
    findings: null,
    objections: [],
    architectAsked: false,
    architectNotes: { notes: [], risks: [] },
  };
}

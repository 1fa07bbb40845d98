// The built-in scenario (no TEAM_SIM_SCENARIO): the README demo, a diamond of four tasks that
// needs a PRD, fails its first verify with one defect, then passes; the architect approves.

// Long enough to watch the workers overlap, short enough that a 3-worker demo ends in seconds.
const DEMO_SLEEP_MS = 200;

export const DEMO_SCENARIO = {
  name: 'demo',
  plan: {
    needsPrd: true,
    tasks: [
      { id: 't1', title: 'Define the input schema', description: 'Describe valid request bodies with a schema.' },
      { id: 't2', title: 'Validate request bodies', description: 'Reject invalid bodies with 400.', blockedBy: ['t1'] },
      { id: 't3', title: 'Validate query parameters', description: 'Reject invalid queries with 400.', blockedBy: ['t1'] },
      { id: 't4', title: 'Test the validation', description: 'Cover valid and invalid input.', blockedBy: ['t2', 't3'] },
    ],
  },
  verify: {
    failPasses: 1,
    defects: [{ id: 'd1', description: 'Empty strings pass the body validation.', task: 't2' }],
  },
  review: { rejectFirst: 0 },
  defaults: { sleepMs: DEMO_SLEEP_MS },
};

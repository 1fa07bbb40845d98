// The flags of the low-level `team state` commands (SPEC section 3), declared once for their parsers
// (state.ts, approve.ts, status-read.ts) and their help.
import type { FlagSpec } from './args.js';
import { FLAGS, PROJECT_FLAGS } from './flags.js';

type Flags = Record<string, FlagSpec>;

const SESSION = {
  session: { type: 'string', value: 'ID', help: 'the session that records this', default: 'TEAM_SESSION, else empty' },
  'parent-session': { type: 'string', value: 'ID', help: 'the session that started that session', default: 'TEAM_PARENT_SESSION, else empty' },
} satisfies Flags;

const required = (value: string, help: string): FlagSpec => ({ type: 'string', value, help, default: 'required' });
const RUN = required('ID', 'the run');
const TASK = required('T', 'the task id');

// `team approve` and `team state approve`: the same approval, the first also on a store.
const APPROVE = {
  ...PROJECT_FLAGS,
  run: { type: 'string', value: 'ID', help: 'the run', default: 'the latest run of the project' },
  stage: required('S', 'the stage whose gate is approved'),
  artifact: required('PATH', 'the artifact approved, in the project (its sha256 as it is now is recorded)'),
  by: required('NAME', 'who approves'),
  note: { type: 'string', value: 'TEXT', help: 'a note kept with the approval', default: 'none' },
} satisfies Flags;

// The flags of `team approve` and of each `team state <command>`, by the words after `team`.
export const STATE_FLAGS = {
  approve: { ...APPROVE, store: FLAGS.status.store },
  'state start-run': {
    ...PROJECT_FLAGS,
    ...SESSION,
    profile: required('P', 'the profile the run is for'),
    stage: required('S', 'the stage the run starts in'),
    task: { type: 'string', value: 'TEXT', help: 'what the run is for', default: 'empty' },
  },
  'state start-task': {
    ...PROJECT_FLAGS,
    ...SESSION,
    run: RUN,
    task: TASK,
    stage: required('S', 'the stage of the attempt'),
    agent: required('A', 'the agent that does it'),
    input: { type: 'string', value: 'PATH...', list: true, help: 'the files it reads, in the project', default: 'none' },
  },
  'state finish-task': {
    ...PROJECT_FLAGS,
    ...SESSION,
    run: RUN,
    task: TASK,
    status: required('STATUS', 'how it ended: completed, failed, interrupted or awaiting_approval'),
    artifact: { type: 'string', value: 'PATH...', list: true, help: 'the files it made, in the project', default: 'none' },
    evidence: { type: 'string', value: 'TEXT', help: 'what shows it is done', default: 'empty' },
    next: { type: 'string', value: 'TEXT', help: 'what should happen next', default: 'empty' },
  },
  'state retry': { ...PROJECT_FLAGS, run: RUN, task: TASK, reason: required('TEXT', 'why it is retried') },
  'state approve': APPROVE,
  'state status': { ...PROJECT_FLAGS, run: FLAGS.status.run, json: FLAGS.status.json, store: FLAGS.status.store },
} satisfies Record<string, Flags>;

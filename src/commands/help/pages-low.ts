// The help of the low-level commands: approve, the `team state` commands, checkpoint, merge-driver.
import { EXIT } from '../../sys/errors.js';
import { FLAGS } from '../args/flags.js';
import { plainExits, USAGE_EXIT, type HelpPage } from './page.js';
import { STATE_FLAGS } from '../args/state-flags.js';

const RUN = '20261028T131016577943Z-20fe61';

// The low level group; the `team state <command>` pages are listed under `team help state`.
export const LOW_PAGES: HelpPage[] = [
  {
    name: 'approve',
    brief: 'record a human approval of an artifact',
    group: 'low level',
    summary: 'record a human approval of an artifact as it is now (its sha256), which an approval gate of the run waits for',
    flags: STATE_FLAGS.approve,
    examples: [['team approve --stage team-prd --artifact docs/prd.md --by alice', 'approve the PRD of the latest run; `team resume` goes on past the gate']],
    exits: plainExits('recorded'),
  },
  {
    name: 'state',
    brief: 'the checkpoint commands, for an agent with its own loop',
    entry: 'team state <command>',
    group: 'low level',
    summary: 'the checkpoint commands, for an agent that keeps its own loop: each records one fact in the run\'s log',
    args: '<start-run|start-task|finish-task|retry|approve|status> [options]',
    about: ['`team help state <command>` tells the options of each.'],
    flags: {},
    examples: [
      ['team state start-run --profile api --stage team-exec', 'create a run; it prints the run id'],
      [`team state start-task --run ${RUN} --task t1 --stage team-exec --agent executor --input src/api.ts`, 'record the start of t1'],
    ],
    exits: plainExits('recorded (or shown)'),
  },
  {
    name: 'state start-run',
    brief: 'create a run and print its id',
    group: 'low level',
    summary: 'create a run and print its id',
    flags: STATE_FLAGS['state start-run'],
    examples: [['team state start-run --profile api --stage team-exec --task "add input validation"', 'a run that starts in team-exec']],
    exits: plainExits('created: the run id is on stdout'),
  },
  {
    name: 'state start-task',
    brief: "record the start of a task's attempt",
    group: 'low level',
    summary: 'record the start of a task\'s attempt, before it is dispatched',
    about: ['Refused while its latest attempt runs; after a failed or interrupted one it starts attempt n+1 only once `team state retry` said why.'],
    flags: STATE_FLAGS['state start-task'],
    examples: [[`team state start-task --run ${RUN} --task t1 --stage team-exec --agent executor --input src/api.ts`, 'prints "t1 a1 started"']],
    exits: plainExits('recorded'),
  },
  {
    name: 'state finish-task',
    brief: "record how a task's attempt ended",
    group: 'low level',
    summary: 'record how a task\'s running attempt ended',
    flags: STATE_FLAGS['state finish-task'],
    examples: [[`team state finish-task --run ${RUN} --task t1 --status completed --artifact src/api.ts --evidence "npm test passes" --next "verify"`, 'prints "t1 a1 completed"']],
    exits: plainExits('recorded'),
  },
  {
    name: 'state retry',
    brief: 'record why a task is tried again',
    group: 'low level',
    summary: 'record why a failed or interrupted task is tried again (a completed task never is)',
    flags: STATE_FLAGS['state retry'],
    examples: [[`team state retry --run ${RUN} --task t1 --reason "the test server was down"`, 'the next start-task of t1 is attempt 2']],
    exits: plainExits('recorded'),
  },
  {
    name: 'state approve',
    brief: 'record a human approval of an artifact',
    group: 'low level',
    summary: 'record a human approval of an artifact as it is now (as team approve, in the run\'s files)',
    flags: STATE_FLAGS['state approve'],
    examples: [[`team state approve --run ${RUN} --stage team-prd --artifact docs/prd.md --by alice`, 'approve the PRD of that run']],
    exits: plainExits('recorded'),
  },
  {
    name: 'state status',
    brief: 'what a run is doing',
    group: 'low level',
    summary: 'what a run is doing (as team status): at session start, after compaction, before planning',
    flags: STATE_FLAGS['state status'],
    examples: [['team state status --json', 'the latest run as JSON']],
    exits: plainExits('shown (also when the project has no run)'),
  },
  {
    name: 'checkpoint',
    brief: 'check checkpoint files against the opchain rules',
    entry: 'team checkpoint validate',
    aliases: ['checkpoint validate'],
    group: 'low level',
    summary: 'check checkpoint files against the opchain rules: errors fail, warnings only with --strict',
    args: 'validate [FILE...]',
    about: ['Without FILE: .checkpoints/team.checkpoint.json in the project.'],
    flags: FLAGS.checkpoint,
    examples: [
      ['team checkpoint validate', 'check the project\'s checkpoint'],
      ['team checkpoint validate --strict .checkpoints/*.checkpoint.json', 'check them all, warnings failing too'],
    ],
    exits: [[EXIT.completed, 'every file passed'], [EXIT.failed, 'a file has an error (or with --strict a warning)'], USAGE_EXIT],
  },
  {
    name: 'merge-driver',
    brief: "git's merge driver for .checkpoints/*.checkpoint.json",
    group: 'low level',
    summary: 'git\'s merge driver for .checkpoints/*.checkpoint.json: git runs it, `team init --git-drivers` registers it',
    args: 'BASE OURS THEIRS [PATH]',
    about: ['BASE, OURS and THEIRS are git\'s %O %A %B (the result goes to OURS), PATH its %P.'],
    flags: FLAGS['merge-driver'],
    examples: [['team merge-driver base.json ours.json theirs.json .checkpoints/team.checkpoint.json', 'merge by hand as git would']],
    exits: [[EXIT.completed, 'merged into OURS'], [EXIT.failed, 'a conflict: markers left in OURS'], USAGE_EXIT],
  },
];

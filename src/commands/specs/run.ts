// The help of the commands that run and follow a run: team, ralph, resume, cancel, status, watch,
// wait, attach.
import { EXIT } from '../../sys/errors.js';
import { FLAGS } from '../args/flags.js';
import { plainExits, RUN_EXITS, USAGE_EXIT, type CommandSpec } from './spec.js';

const TASK = '"add input validation to the API"';

// The run group and the follow group.
export const RUN_COMMANDS: CommandSpec[] = [
  {
    name: 'run',
    run: async (argv) => (await import('../run.js')).runTeam(argv, 'team'),
    brief: 'start a run: plan, build with N workers, verify, fix',
    entry: 'team [N:type] "task"',
    group: 'run',
    summary: 'start a run: a planner splits the task, N workers build it at once, a verifier checks it and fix loops mend what failed',
    args: '[N:agent-type] "task"',
    about: [
      'N is 1..20 workers (default team.defaultWorkers: 3); agent-type is a role (default executor) or an agent: `team 3:codex "…"` runs team-exec on codex.',
      'Every step is recorded under .team/runs/<run> before it happens: a run killed or rebooted away continues with `team resume`.',
      'With worktrees (git projects: the default) the work ends on the branch team/<run>, which `team land` merges.',
      'A bare single word is refused, as it is more often a mistyped command; --task WORD runs a one-word task.',
      '--budget-usd / --budget-tokens (or team.budget) cap what the agents spend: past it the run stops for a decision (exit 4), and `team resume --budget-usd X` (or --budget-tokens N, the flag of the part that ran out) goes on.',
    ],
    flags: FLAGS.run,
    examples: [
      [`team 3:executor ${TASK}`, 'three executors on one task, with the agents of the config or on the PATH'],
      [`team 3:executor ${TASK} --agent sim`, 'the same with the simulated agent: no key, no network'],
      [`team 2:executor "fix the flaky login test" --detach`, 'run it in the background: `team wait` or `team watch` follows it'],
    ],
    exits: RUN_EXITS,
  },
  {
    name: 'ralph',
    run: async (args) => (await import('../run.js')).runTeam(args, 'ralph'),
    brief: 'a run that loops until an architect approves',
    entry: 'team ralph [N:type] "task"',
    group: 'run',
    summary: 'a run inside a persistence loop: after verify passes an architect reviews, and a rejection is fixed, until approved',
    args: '[N:agent-type] "task"',
    about: [
      'A rejection becomes defects for team-fix; when an iteration\'s fix loops are spent, the next iteration plans again with every handoff so far.',
      'The iterations are capped (--max-iterations, no extension): past the cap the run fails.',
    ],
    flags: FLAGS.ralph,
    examples: [
      [`team ralph 3:executor ${TASK}`, 'plan, build, verify and review until the architect approves'],
      [`team ralph "migrate the settings page to the new form library" --max-iterations 3 --agent sim`, 'at most three iterations, with the simulated agent'],
    ],
    exits: RUN_EXITS,
  },
  {
    name: 'resume',
    run: async (args) => (await import('../resume.js')).resumeCommand(args),
    brief: 'continue a run from its log: after a crash, a kill -9, a decision',
    group: 'run',
    summary: 'continue a run from its event log: after a crash, a kill -9, a reboot or a stop for a decision',
    about: [
      'An attempt that may have run without its result being recorded stops the run for a decision (exit 4), unless --retry-interrupted retries it.',
      'A run stopped by its budget goes on once --budget-usd or --budget-tokens raises it above what it spent; the attempts the budget stopped run again.',
      'The config: --config FILE when given, else the file the run was started with (its --config) while it exists (one line says so), else .team/config.json. A config that lacks an agent the run uses is refused (exit 2) before anything is recorded.',
      'On a run an orchestrator drives now, --budget-usd / --budget-tokens raise its budget through the run\'s writer (recorded as budget_raised) and return at once; the run goes on under the new budget.',
    ],
    flags: FLAGS.resume,
    examples: [
      ['team resume', 'continue the latest run of the project'],
      ['team resume --run 20261028T131016577943Z-20fe61 --retry-interrupted --detach', 'continue that run in the background, retrying what was interrupted'],
      ['team resume --budget-usd 8', 'raise the budget of the latest run to $8 and go on'],
    ],
    exits: [...RUN_EXITS.slice(0, 2), [EXIT.usage, 'bad usage, the run already ended, or another orchestrator drives it'], ...RUN_EXITS.slice(3)],
  },
  {
    name: 'scale',
    run: async (args) => (await import('../scale.js')).scaleCommand(args),
    brief: 'change the number of workers of a live run',
    group: 'run',
    args: 'N',
    summary: 'ask a run to go on with N workers (1..20): up adds workers with new names, down drains idle workers first and lets busy ones finish their attempt',
    about: ['The request goes to the run\'s writer, which records it in the log: a run that nothing drives now takes it when it resumes (team status shows it pending). A run that has ended is refused.', 'After a scale down, team status shows the drained workers that still run an attempt: draining: worker-3 (t5 a1).'],
    flags: FLAGS.scale,
    examples: [
      ['team scale 5', 'the latest run goes on with 5 workers'],
      ['team scale --run 20261028T131016577943Z-20fe61 1', 'that run drains to one worker'],
    ],
    exits: [[EXIT.completed, 'the request is posted'], USAGE_EXIT],
  },
  {
    name: 'cancel',
    run: async (args) => (await import('../cancel.js')).cancelCommand(args),
    brief: 'stop a run, from any shell',
    group: 'run',
    summary: 'stop a run from any shell: its orchestrator is asked to stop the workers, or, when it is gone, they are stopped from the log',
    about: ['The workers get a grace period to stop (team.shutdownTimeoutMs: 15 s), then SIGTERM and SIGKILL; --force, or a second Ctrl-C in the run\'s own terminal, skips it.'],
    flags: FLAGS.cancel,
    examples: [
      ['team cancel', 'cancel the latest run of the project'],
      ['team cancel --run 20261028T131016577943Z-20fe61 --force', 'cancel that run, stopping its workers at once'],
    ],
    exits: [[EXIT.completed, 'the run is cancelled, or had already ended (nothing changed)'], [EXIT.failed, 'the run is still shutting down (team status shows it), or the sweep could not cancel it'], USAGE_EXIT],
  },
  {
    name: 'status',
    // `team status --watch` is the live view of `team watch`.
    run: async (args) => (args.includes('--watch') ? (await import('../follow/watch.js')).watchCommand(args.filter((a) => a !== '--watch'), 'team status --watch') : (await import('../follow/status.js')).runStatus(args)),
    brief: 'what a run is doing and what needs attention',
    group: 'follow',
    summary: 'what a run is doing: stage, tasks and attempts, cost, whether anything drives it, where the work is, and what needs attention; read-only',
    about: ['Needs attention: attempts nobody drives, stale approvals, malformed files, conflicting records, decisions waited for.'],
    flags: FLAGS.status,
    examples: [
      ['team status', 'the latest run of the project in this folder'],
      ['team status --cwd ~/src/api --json', 'the same for another project, as JSON for a script'],
      ['team status --watch', 'the live view (`team help watch`)'],
    ],
    exits: plainExits('shown, whatever the run\'s state (also when the project has no run)'),
  },
  {
    name: 'watch',
    run: async (args) => (await import('../follow/watch.js')).watchCommand(args),
    brief: 'the live view of a run',
    group: 'follow',
    summary: 'the live view of a run: stage, fix loop, one lane per worker with its task and last output, cost; ends with the run',
    about: ['q quits the view and the run goes on. Without a terminal it prints one line per change.'],
    flags: FLAGS.watch,
    examples: [
      ['team watch', 'watch the latest run of the project'],
      ['team watch --run 20261028T131016577943Z-20fe61 --interval 250', 'watch that run, read four times a second'],
    ],
    exits: plainExits('the run ended, or you quit the view'),
  },
  {
    name: 'wait',
    run: async (args) => (await import('../follow/wait.js')).waitCommand(args),
    brief: 'block until a run ends, and exit with its code',
    group: 'follow',
    summary: 'block until a run ends and exit with its code; with --timeout, print a one-screen summary of the progress instead, at the timeout or as soon as a worker asks the lead a question',
    flags: FLAGS.wait,
    examples: [
      ['team wait', 'wait for the latest run to end'],
      ['team wait --run 20261028T131016577943Z-20fe61 --timeout 100', 'wait at most 100 s (less when a worker asks the lead), then say how far the run got (an agent loops on this)'],
      ['team wait --run 20261028T131016577943Z-20fe61 --since 120 --timeout 100', 'the same, telling what changed since event 120 (the last summary names its next command)'],
    ],
    exits: [
      [EXIT.completed, 'the run completed'],
      [EXIT.failed, 'the run failed'],
      USAGE_EXIT,
      [EXIT.cancelled, 'the run was cancelled'],
      [EXIT.decision, 'the run stopped for a human decision'],
      [EXIT.waitTimeout, 'the timeout passed, or a worker asked the lead a question, while the run goes on'],
      [EXIT.noOrchestrator, 'the run has not ended and no orchestrator drives it: `team resume --detach` continues it'],
    ],
  },
  {
    name: 'attach',
    run: async (args) => (await import('../attach.js')).attachCommandLine(args),
    brief: 'attach this terminal to the tmux panes of a run',
    group: 'follow',
    summary: 'attach this terminal to the tmux server of a run started with --tmux, on a window that tiles every worker',
    flags: FLAGS.attach,
    examples: [
      ['team attach', 'see the workers of the latest run (prefix + d detaches; the run goes on)'],
      ['team attach --print', 'print the tmux command to run it elsewhere'],
    ],
    exits: [[EXIT.completed, 'you detached (otherwise: tmux\'s own exit code)'], [EXIT.usage, 'bad usage, or the run has no tmux workers']],
  },
];

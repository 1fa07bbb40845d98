// The help of the commands that inspect runs, take their work, set up and scale out: list, report,
// land, clean, init, doctor, worker.
import { EXIT } from '../../sys/errors.js';
import { FLAGS } from '../args/flags.js';
import { INIT_FLAGS } from '../args/init-flags.js';
import { plainExits, USAGE_EXIT, type CommandSpec } from './spec.js';

// The inspect, take the work, set up and scale out groups.
export const MORE_COMMANDS: CommandSpec[] = [
  {
    name: 'list',
    run: async (args) => (await import('../follow/list.js')).listCommand(args),
    brief: "the project's runs",
    group: 'inspect',
    summary: 'the project\'s runs, oldest first: id, mode, status, started, duration, cost, the session that started it, task',
    flags: FLAGS.list,
    examples: [
      ['team list', 'the runs of the project in this folder'],
      ['team list --json', 'the same as a JSON array'],
    ],
    exits: plainExits('listed (also when there is no run)'),
  },
  {
    name: 'report',
    run: async (args) => (await import('../follow/report.js')).reportCommand(args),
    brief: 'one HTML page of a run: timeline, verdicts, cost',
    group: 'inspect',
    summary: 'write one self-contained HTML page of a run (timeline of attempts, verdicts, handoffs, cost) and print its path',
    flags: FLAGS.report,
    examples: [
      ['team report', 'the page of the latest run, in its run folder'],
      ['team report --run 20261028T131016577943Z-20fe61 --out run.html', 'that run\'s page, written to run.html'],
    ],
    exits: plainExits('written'),
  },
  {
    name: 'trace',
    run: async (args) => (await import('../follow/trace.js')).traceCommand(args),
    brief: 'a run as one OpenTelemetry trace, sent to your collector',
    group: 'inspect',
    summary: 'send a run as one OpenTelemetry trace (GenAI conventions: invoke_workflow, stages, invoke_agent per attempt, execute_tool per gate) to an OTLP/HTTP receiver, or print it as JSON',
    about: [
      'The receiver is --endpoint, else OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT; OTEL_EXPORTER_OTLP_PROTOCOL picks http/protobuf (default) or http/json, and OTEL_EXPORTER_OTLP_HEADERS and _TIMEOUT apply. With no receiver the spans are printed.',
      'The ids derive from the run: a resumed run, traced again, gives the same trace. No prompt or agent text goes into a span unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.',
      'A run sends its spans live while it goes when OTEL_EXPORTER_OTLP_ENDPOINT or team.telemetry.endpoint names a receiver; one that fails is told once and never stops the run. team trace sends a run that was not (or whose receiver was down).',
    ],
    flags: FLAGS.trace,
    examples: [
      ['team trace --endpoint http://127.0.0.1:4318', 'the latest run, to a collector (Jaeger, Tempo, an OpenTelemetry Collector) on this machine'],
      ['team trace --run 20261028T131016577943Z-20fe61', 'that run\'s spans, printed as JSON'],
    ],
    exits: [[EXIT.completed, 'sent (or printed)'], [EXIT.failed, 'the receiver did not take it (named, with why)'], USAGE_EXIT],
  },
  {
    name: 'land',
    run: async (args) => (await import('../git/land.js')).landCommand(args),
    brief: "merge a completed run's branch team/<run> into yours",
    group: 'take the work',
    summary: 'merge a completed run\'s branch team/<run> into the branch checked out in the project',
    about: ['Refused, changing nothing, on a detached HEAD, while tracked files have uncommitted changes, and when the run adds a file that is in your checkout untracked or ignored (named); a conflict is aborted and the work stays on team/<run>.'],
    flags: FLAGS.land,
    examples: [
      ['team land', 'land the latest run'],
      ['team land --run 20261028T131016577943Z-20fe61', 'land that run'],
    ],
    exits: [
      [EXIT.completed, 'landed, or already in your branch'],
      [EXIT.failed, 'the merge had a conflict and was aborted: merge team/<run> yourself'],
      [EXIT.usage, 'refused: not completed, no worktrees, a detached HEAD, uncommitted changes, files in the way'],
    ],
  },
  {
    name: 'restore',
    run: async (args) => (await import('../git/restore.js')).restoreCommand(args),
    brief: 'your working tree back as a run in it found it',
    group: 'take the work',
    summary: 'a run under isolation none shared your checkout with its workers: put your working tree back as it was at the run\'s start',
    about: ['The run saved your uncommitted work at its start (tracked edits and untracked files git does not ignore) under refs/team/<run>/start. What the tree holds before the restore, the run\'s work among it, is saved first under refs/team/<run>/before-restore. Your index, HEAD and branches are not touched.'],
    flags: FLAGS.restore,
    examples: [
      ['team restore', 'restore what the latest run saved'],
      ['team restore --run 20261028T131016577943Z-20fe61', 'restore what that run saved'],
    ],
    exits: [
      [EXIT.completed, 'restored'],
      [EXIT.usage, 'refused: the run saved nothing, or it still runs'],
    ],
  },
  {
    name: 'clean',
    run: async (args) => (await import('../git/clean.js')).cleanCommand(args),
    brief: "remove ended runs' worktrees and merged branches",
    group: 'take the work',
    summary: 'remove the worktrees of ended runs and delete their branches whose every commit is merged',
    about: ['team/<run> goes only once a branch of yours holds it. Runs whose folder is gone are cleaned too. A worktree with uncommitted changes or commits on no branch, and a branch with unmerged commits, are kept and named.'],
    flags: FLAGS.clean,
    examples: [
      ['team clean', 'clean every ended run of the project'],
      ['team clean --run 20261028T131016577943Z-20fe61', 'clean only that run'],
    ],
    exits: plainExits('cleaned (also when there was nothing to clean)'),
  },
  {
    name: 'init',
    run: async (args) => (await import('../init.js')).initCommand(args),
    brief: 'install /team, /ralph, /cancel, /team-status in your agent CLIs',
    group: 'set up',
    summary: 'write the /team, /ralph, /cancel and /team-status commands for each agent CLI, so that a run starts from inside it',
    about: [
      'Idempotent: what it wrote is recorded in .team/init-manifest.json, and a file changed since is kept unless --force.',
      '--git-drivers registers the merge driver of .checkpoints/*.checkpoint.json in this clone.',
    ],
    flags: INIT_FLAGS,
    examples: [
      ['team init', 'set up every agent CLI found on the PATH, in this project'],
      ['team init --claude --global', 'set up Claude Code for every project of yours'],
      ['team init --print', 'show what would be written'],
    ],
    exits: [[EXIT.completed, 'written (or shown)'], [EXIT.usage, 'no CLI named and none on the PATH, or bad usage']],
  },
  {
    name: 'doctor',
    run: async (args) => (await import('../doctor.js')).doctorCommand(args),
    brief: 'check what a run needs: tools, agent logins, PATH, config',
    group: 'set up',
    summary: 'check what a run needs, one line each, ok or what to fix',
    about: [
      'Node, git, tmux, each agent CLI with its version and whether it is logged in, team on the PATH (also a login shell\'s),',
      'the command files installed and current, .team/ ignored by git, the config, and with --store the database.',
    ],
    flags: FLAGS.doctor,
    examples: [
      ['team doctor', 'check this machine and the project in this folder'],
      ['team doctor --store postgres://team:secret@db.internal:5432/team', 'also check that the store answers'],
    ],
    exits: [[EXIT.completed, 'every required check passed'], [EXIT.failed, 'a required check failed: its line says what to fix'], USAGE_EXIT],
  },
  {
    name: 'worker',
    run: async (args) => (await import('../worker.js')).workerCommand(args),
    brief: 'run the attempts of runs on a PostgreSQL store on this machine',
    group: 'scale out',
    summary: 'pull the attempts of runs on a PostgreSQL store and run them on this machine, each under a lease, until stopped',
    about: [
      'It reports what happens and never writes the log: the run\'s orchestrator does. SIGTERM or SIGINT stops only the agents it started.',
      'Runs go to the store with --store URL (or team.store in the config) on team, ralph, resume, cancel, status, watch, wait, list, report, land and approve.',
      'The store comes from --store, else --store-file, else TEAM_STORE, else team.store in the folder\'s .team/config.json; the agents it starts never inherit TEAM_STORE or PGPASSWORD.',
    ],
    flags: FLAGS.worker,
    examples: [
      ['team worker --store-file ~/.config/team-store', 'run one attempt at a time from the store the file names'],
      ['team worker --labels gpu --max 4', 'with TEAM_STORE (and PGPASSWORD) set: also take the attempts queued for gpu, four at once'],
    ],
    exits: [[EXIT.completed, 'stopped by SIGTERM or SIGINT, its agents stopped and reported'], USAGE_EXIT],
  },
];

// Every command's flags, declared once: its parser reads them (parseFlags) and its help lists them
// (help.ts), so that the two cannot differ. The flags of the `team state` commands are in state-flags.ts,
// `team init`'s in init-flags.ts (they derive from the CLI catalogue, which the light commands that
// read this table, cancel and status, would otherwise load at every start).
import type { FlagSpec } from './args.js';

type Flags = Record<string, FlagSpec>;

export const PROJECT_DIR: FlagSpec = { type: 'string', value: 'DIR', help: 'the project folder', default: 'the current folder' };

// Flags every command that touches a project takes.
export const PROJECT_FLAGS = {
  cwd: { ...PROJECT_DIR, help: 'the project folder, or a run\'s folder in it (which names that run too)' },
  config: { type: 'string', value: 'FILE', help: 'the config file', default: '.team/config.json in the project when there is one, else the built-in defaults' },
} satisfies Flags;

const run = (what: string): FlagSpec => ({ type: 'string', value: 'ID', help: `the run ${what}`, default: 'the latest run of the project' });
const json = (help: string): FlagSpec => ({ type: 'boolean', help });
const PROGRESS_JSON = json('one JSON event per line on stdout (human progress goes to stderr either way)');
const store = (what: string): FlagSpec => ({
  type: 'string',
  value: 'URL',
  help: `${what} a PostgreSQL store: postgres://user:password@host:port/database`,
  default: 'team.store in the config, else the files under .team/runs',
});
const budgetUsd = (what: string): FlagSpec => ({ type: 'string', value: 'X', help: `${what} in dollars: past it no attempt starts and the run stops for a decision (exit 4)`, default: 'team.budget.usd in the config: none' });
const budgetTokens = (what: string): FlagSpec => ({ type: 'string', value: 'N', help: `${what} in tokens (input and output)`, default: 'team.budget.tokens in the config: none' });
const detach: FlagSpec = { type: 'boolean', help: 'run the orchestrator in a session of its own (its output in the run folder), print the run id and return' };

// `team [N:agent-type] "task"`.
const RUN = {
  ...PROJECT_FLAGS,
  tmux: { type: 'boolean', help: 'run the workers in tmux panes (`team attach` shows them)', default: 'team.mode in the config: headless' },
  headless: { type: 'boolean', help: 'run the workers as plain processes', default: 'team.mode in the config: headless' },
  agent: { type: 'string', value: 'NAME', help: 'one agent for every role: claude, codex, gemini, opencode, aider, sim (no key needed) or one of the config', default: 'per role from the config, else the first of claude, opencode, codex, gemini on the PATH' },
  'max-fix-loops': { type: 'string', value: 'K', help: 'how many fix loops verify may send back before the run fails (0..100)', default: 'team.maxFixLoops in the config: 3' },
  'keep-panes': { type: 'boolean', help: 'with --tmux: leave the panes after the run' },
  'cost-mode': { type: 'string', value: 'MODE', help: 'each role\'s model tier: economy, balanced or quality (verify never below the middle tier; the models per CLI are in `models` of the config)', default: 'team.costMode in the config; unset: each agent\'s own model' },
  json: PROGRESS_JSON,
  task: { type: 'string', value: 'TEXT', help: 'the task as a flag (the only way to give a one-word task)', default: 'the task argument' },
  land: { type: 'boolean', help: 'with worktrees: `team land` the work at the end of a completed run' },
  detach,
  store: store('keep the run in'),
  'budget-usd': budgetUsd('the run\'s budget'),
  'budget-tokens': budgetTokens('the run\'s budget'),
  'best-of': { type: 'string', value: 'K', help: 'the best of K: each planned task runs as K candidate attempts at once, each in its own worktree, and a selector merges the best (1..8, 1 is one attempt; a task\'s own bestOf wins)', default: 'team.bestOf in the config: 1' },
} satisfies Flags;

// The flags of each command but `team state`, by the words after `team` (`run` is `team "task"`).
export const FLAGS = {
  run: RUN,
  ralph: { ...RUN, 'max-iterations': { type: 'string', value: 'K', help: 'the cap of iterations (plan, build, verify, review) before the run fails (1..1000)', default: 'ralph.maxIterations in the config: 10' } },
  status: { ...PROJECT_FLAGS, run: run('to show'), json: json('the status as one JSON document'), store: store('read the run from'), watch: { type: 'boolean', help: 'the live view instead: `team watch`, with its options' } },
  watch: { ...PROJECT_FLAGS, run: run('to watch'), interval: { type: 'string', value: 'MS', help: 'how often the view reads the run (100..60000)', default: '1000' }, store: store('read the run from') },
  wait: {
    ...PROJECT_FLAGS,
    run: run('to wait for'),
    timeout: { type: 'string', value: 'S', help: 'stop waiting after S seconds with a summary of the progress, exit 5', default: 'wait until the run ends' },
    since: { type: 'string', value: 'N', help: 'tell the changes in that summary from the Nth event of the log (the last summary names it)', default: 'from what the previous wait saw' },
    round: { type: 'string', value: 'K', help: "this wait's round, which the summary's next command counts up, so that no two calls look alike to an agent CLI's loop guard (1..)", default: '1' },
    json: json('the summary as one JSON document'),
    store: store('read the run from'),
  },
  attach: { ...PROJECT_FLAGS, run: run('to attach to'), print: { type: 'boolean', help: 'print the tmux command instead of running it' } },
  list: { ...PROJECT_FLAGS, json: json('the runs as a JSON array'), store: store('list the runs of') },
  acp: {},
  trace: {
    ...PROJECT_FLAGS,
    run: run('to trace'),
    endpoint: { type: 'string', value: 'URL', help: 'the OTLP/HTTP receiver to send the trace to (its base URL, as OTEL_EXPORTER_OTLP_ENDPOINT)', default: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT; with neither, the trace is printed' },
    store: store('read the run from'),
  },
  report: { ...PROJECT_FLAGS, run: run('to report'), out: { type: 'string', value: 'FILE', help: 'where to write the page', default: 'report.html in the run folder (with a store: report-<run>.html in the project)' }, store: store('read the run from') },
  land: { ...PROJECT_FLAGS, run: run('to land'), json: PROGRESS_JSON, store: store('the run is in'), acknowledge: { type: 'boolean', help: 'land although your checkout changed while the run ran (team status lists what changed)' } },
  restore: { ...PROJECT_FLAGS, run: run('whose saved checkout to restore'), json: PROGRESS_JSON },
  clean: { ...PROJECT_FLAGS, run: { type: 'string', value: 'ID', help: 'clean only this run (refused unless it ended)', default: 'every ended run' }, json: PROGRESS_JSON },
  doctor: { ...PROJECT_FLAGS, store: store('check that the database is reachable:'), json: json('the checks as one JSON document') },
  worker: {
    store: { type: 'string', value: 'URL', help: 'the PostgreSQL store to pull attempts from: postgres://user:password@host:port/database (on the command line, every local user sees it)', default: '--store-file, else TEAM_STORE, else team.store in the folder\'s .team/config.json' },
    'store-file': { type: 'string', value: 'FILE', help: 'a file whose first line is the store\'s URL', default: 'none' },
    labels: { type: 'string', value: 'a,b', help: 'also pull the attempts queued for these labels', default: 'only the unlabelled queue' },
    max: { type: 'string', value: 'N', help: 'how many attempts to run at once (1..20)', default: '1' },
    'lease-ttl': { type: 'string', value: 'S', help: 'how long a lease lives without renewal, in seconds (2..3600)', default: '60' },
    cwd: { type: 'string', value: 'DIR', help: 'the folder the agents work in', default: 'the current folder' },
  },
  resume: {
    ...PROJECT_FLAGS,
    config: { ...PROJECT_FLAGS.config, help: 'the config file the run goes on with (it must define every agent the run uses)', default: 'the file the run started with (its --config) while it exists, else .team/config.json in the project when there is one, else the built-in defaults' },
    run: run('to continue'),
    'retry-interrupted': { type: 'boolean', help: 'retry the attempts that may have run instead of stopping for a decision' },
    json: PROGRESS_JSON,
    detach,
    store: store('the run is in'),
    'budget-usd': { ...budgetUsd('raise the run\'s budget to this'), default: 'the budget the run has' },
    'budget-tokens': { ...budgetTokens('raise the run\'s budget to this'), default: 'the budget the run has' },
  },
  scale: { ...PROJECT_FLAGS, run: run('to scale'), store: store('the run is in') },
  cancel: { ...PROJECT_FLAGS, run: run('to cancel'), force: { type: 'boolean', help: 'skip the grace period: stop the workers at once' }, json: PROGRESS_JSON, store: store('the run is in') },
  checkpoint: { cwd: PROJECT_DIR, strict: { type: 'boolean', help: 'warnings fail too' } },
  'merge-driver': {},
} satisfies Record<string, Flags>;

// Types shared by agent adapters, worker backends and the runtime. Data only, no behaviour.

export const STAGES = ['team-plan', 'team-prd', 'team-exec', 'team-verify', 'team-fix', 'ralph-review'] as const;
export type Stage = (typeof STAGES)[number];

// What an attempt may do, from least to most: read the project; also edit its files; also run
// commands. Each adapter maps a level to its CLI's own permission flags.
export const PERMISSION_LEVELS = ['read', 'edit', 'run'] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

// A named agent backend from config (`agents.<name>`).
export interface AgentConfig {
  /** One of the catalogue's adapters (workers/adapters/index.ts), as the config's schema checks. */
  adapter: string;
  /** Executable to run; defaults to the adapter's CLI name (e.g. `claude`). For `command`: argv[0]. */
  command?: string;
  /** Extra arguments appended to the adapter's own; for `command`, the whole argv after `command`. */
  args?: string[];
  env?: Record<string, string>;
  model?: string;
  /** A raw CLI value for every stage (claude --permission-mode, codex --sandbox, gemini --approval-mode); wins over `permissions`. */
  permissionMode?: string;
  /** Per stage, what the agent may do; stages not named keep the built-in default. */
  permissions?: Partial<Record<Stage, PermissionLevel>>;
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** `command` adapter only: how the prompt reaches the agent. */
  promptVia?: 'file' | 'arg' | 'stdin';
  /** `acp` adapter only: the sign-in method (an id of the agent's authMethods) the session is authenticated with. */
  authMethod?: string;
  /** `sim` adapter only: path of the scenario file. */
  scenario?: string;
  /** Run this agent's workers in tmux panes. */
  tmux?: boolean;
  /** Give the worker the team tools (the `team mcp` server); default on for claude, codex, gemini, opencode. */
  teamTools?: boolean;
}

// What an adapter gets to build one attempt's command line.
export interface AdapterInput {
  prompt: string;
  promptFile: string;
  resultFile: string;
  projectDir: string;
  agent: AgentConfig;
  stage: Stage;
  /** What this attempt may do: its stage's level for this agent. */
  permission: PermissionLevel;
  /** How the CLI starts the attempt's team tool server; absent when the agent has no team tools. */
  teamServer?: TeamToolServer;
}

// The command line of one attempt's team tool server (`team mcp --attempt-dir <folder>`):
// absolute paths, and the attempt in the arguments (codex and gemini filter an MCP server's env).
export interface TeamToolServer {
  command: string;
  args: string[];
}

// The command line an adapter built; the backend runs it in the project folder.
export interface AgentCommand {
  file: string;
  args: string[];
  /** A file whose contents are fed on the agent's standard input. */
  stdinFile?: string;
  env?: Record<string, string>;
}

// What an agent CLI's machine output says about the attempt.
export interface AgentReport {
  /** The CLI's terminal success record was seen (never inferred from an exit code). */
  ok: boolean;
  /** The final answer text, where a fenced ```json result may be found. */
  finalText?: string;
  sessionId?: string;
  costUsd?: number;
  tokens?: Tokens;
  /** Why the CLI says it failed (error subtype, max turns, budget, ...). */
  error?: string;
  /** The CLI printed no machine record at all: its exit code and last lines are the evidence. */
  noRecord?: true;
  /** A failure that trying again cannot fix (credentials, quota, model, provider). */
  failure?: AgentFailure;
  /** Tool calls the CLI refused for lack of permission, e.g. `Bash: npm test`. */
  denials?: string[];
  /** The first permission the CLI refused (the write of the result file, a command): the attempt's failure when no valid result came. */
  refused?: AgentFailure;
  /** The API refused for a rate limit or an overload (429, 529): the attempt is retried after a back-off, counted as no failure. */
  rateLimit?: RateLimit;
}

// A rate limit or an overload the CLI reported (issue 29): its words, and the wait it asked for.
export interface RateLimit {
  reason: string;
  retryAfterMs?: number;
}

// What a CLI reported spending so far: totals, for the run's budget while the attempt works.
export interface SpendSoFar {
  costUsd?: number;
  tokens?: Tokens;
}

// Tokens an attempt sent (input: all of them, the cached ones included) and received; `cached`: how
// many of the input tokens the provider served from its prompt cache (absent: none reported).
export interface Tokens {
  input: number;
  output: number;
  cached?: number;
}

// `tokens` with `cached` when there are any.
export function withCached(tokens: { input: number; output: number }, cached: number): Tokens {
  return cached > 0 ? { ...tokens, cached } : tokens;
}

export const FAILURE_KINDS = ['not-logged-in', 'bad-key', 'quota', 'unknown-model', 'missing-provider', 'permission-refused'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

// A failure no retry can fix (credentials, quota, model, provider, a refused permission): the run stops at the first one with its reason.
export interface AgentFailure {
  kind: FailureKind;
  retryable: false;
  /** Names the CLI, the cause (what it said) and what to do. */
  reason: string;
  /** A spent quota: when it comes back, in the CLI's words ("3pm", "Jan 1st, 2031 3:00 PM"), when it says. */
  resets?: string;
}

// What newly written output lines say: real progress or only noise, and an early fatal failure.
export interface OutputSignals {
  /** A tool call, tokens or a result: not a reconnect or retry notice. */
  progress: boolean;
  failure?: AgentFailure;
  /** The last notice in these lines of a rate limit or an overload the CLI retries itself. */
  retry?: CliRetry;
}

// A rate limit or an overload a CLI rides out itself, as its notice says: claude's api_retry
// record, codex's "Reconnecting... 3/5 (… 429 …)".
export interface CliRetry {
  /** The notice in one readable line: the status and the API's words. */
  reason: string;
  /** Which retry this is, and of how many the CLI makes, when the notice says. */
  n?: number;
  max?: number;
  /** How long the CLI waits before it, when the notice says. */
  delayMs?: number;
}

// One of teamline's slash commands (/team, /ralph, /cancel, /team-status) as `team init` writes it
// for a CLI: its name, its one-line description, its argument hint, and its text, with `args` where
// the CLI puts the command's arguments and `team` how it runs teamline.
export interface SlashCommand {
  name: string;
  description: string;
  argumentHint: string;
  body(args: string, team: string): string;
}

// What `team init` hands a CLI's record to write its files from: how the files name teamline (the
// word `team`, or the absolute path given to --bin), the slash commands, and the whole text of the
// skill, for a CLI that reads skills instead of custom commands.
export interface InitTexts {
  team: string;
  commands: readonly SlashCommand[];
  skill: string;
}

// A file `team init` writes: its absolute path and its text.
export interface CommandFile {
  path: string;
  text: string;
}

// What the rest of teamline knows of an agent CLI besides how to drive it: its catalogue record,
// kept in its adapter's file, from which every list of CLIs derives (routing, the config's built-in
// agent names, the cost modes' tiers, `team doctor`).
export interface CliFacts {
  /** Usable as an agent by its own name, with no `agents` entry in the config. */
  byName: boolean;
  /** When a role has no agent, the CLIs on PATH are tried by this rank, lowest first; none: never. */
  pathRank?: number;
  /** Its workers get the team tools unless their agent's config says otherwise (it speaks MCP and is wired). */
  teamTools?: boolean;
  /**
   * It starts the team tools' server itself, as its own MCP client (the sim, standing in for a model
   * that calls them): its attempts' calls are taken though it is given no server and no tools text.
   */
  ownToolClient?: boolean;
  /** The cost modes' models: cheapest, middle, strongest (`models` in the config adds or replaces them). */
  tiers?: readonly [string, string, string];
  /** It caps an attempt's spend itself (claude --max-budget-usd): teamline's watch does not. */
  capsSpend?: boolean;
  /** What `team init --<name>` sets up: where and in which format the CLI reads custom commands. */
  init?: {
    /** What it sets up, in the words of `team init`'s help ("set up Claude Code"). */
    setUp: string;
    /** Where it comes in `team init`'s lists (its flags, its files, its messages), lowest first. */
    rank: number;
    /** The files under `root`: the project, or the home folder with --global. */
    files(texts: InitTexts, root: string, global: boolean): CommandFile[];
    /** The steps the CLI needs once beyond the files (trusting a folder, a user policy), a line each. */
    notes?(root: string, global: boolean, team: string): string[];
    /** It runs commands in a login shell (codex: `bash -lc`), whose PATH is not the caller's. */
    loginShell?: boolean;
  };
  /** The offline signs that the CLI can reach its model, for `team doctor`. */
  login?: {
    /** API-key variables. */
    env: readonly string[];
    /** Credential files, from the environment and the home folder. */
    files(env: NodeJS.ProcessEnv, home: string): string[];
    /** How to log in, in the doctor's words. */
    how: string;
  };
  /**
   * The CLI's own state (sessions, settings it rewrites, caches), from the worker's environment and
   * home folder: folders, or files the CLI rewrites in place. The fence leaves them writable; a
   * folder missing is made first. `private`: folders the CLI uses at a fixed place outside TMPDIR
   * (codex's /tmp/codex-daemon-<uid>, whose daemon socket is the user's): each attempt gets an empty
   * folder of its own bound there, so it can work and never reaches what the user's CLI keeps there.
   */
  state?(env: Record<string, string | undefined>, home: string): { dirs: string[]; files?: string[]; private?: string[] };
}

export interface AgentAdapter {
  /** Its name in the catalogue (workers/adapters/index.ts) and in a config's `adapter`. */
  name: string;
  /** The CLI's catalogue record (none: not usable by its name, in no list). */
  facts?: CliFacts;
  build(input: AdapterInput): AgentCommand;
  /** Reads the CLI's output (output.log: whole up to 4 MB, else its head and tail). A CLI with no machine output reports ok with finalText. */
  parse(output: string): AgentReport;
  /** Session id as soon as it can be seen in partial output, for the log. */
  peekSessionId?(partialOutput: string): string | undefined;
  /** Reads output lines as they arrive; without it any output counts as progress. */
  scan?(lines: string[]): OutputSignals;
  /** What the attempt spent so far, read from its output while it works; without it only the end's totals count. */
  spendSoFar?(partialOutput: string): SpendSoFar | undefined;
}

// Everything a backend needs to run one attempt.
export interface LaunchSpec {
  runId: string;
  taskId: string;
  attempt: number;
  worker: string;
  /** Absolute; holds prompt.md; output.log, pid.json and exit.json are written here. */
  attemptDir: string;
  cwd: string;
  command: AgentCommand;
  /** The full environment additions: TEAM_* and the agent's own. */
  env: Record<string, string>;
}

// What identifies a started worker, recorded in the log before work starts.
export type WorkerHandle =
  | {
      backend: 'process';
      pid: number;
      pidStart: number;
      pgid: number;
      bootId?: string;
      /** The pid namespace the pid is in; absent in older logs. */
      pidNs?: string;
      /** The machine's fork count just before the worker started (see workers/escapees.ts); absent in older logs. */
      forksAt?: number;
    }
  | {
      backend: 'tmux';
      server: string;
      socketDir: string;
      paneId: string;
      window: string;
      pid: number;
      pidStart: number;
      pgid: number;
      /** The boot the pid was recorded on (/proc/sys/kernel/random/boot_id); absent in older logs. */
      bootId?: string;
      /** The pid namespace the pid is in; absent in older logs. */
      pidNs?: string;
      forksAt?: number;
    };

// How a worker ended, as data. Only our own bugs throw.
export interface WorkerExit {
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  /** We stopped it (cancel, watchdog, abort). */
  stopped: boolean;
  /** Extra words on how it ended (killed from outside, pane gone, ...). */
  reason?: string;
}

export interface StopOptions {
  /** Time between the polite request (shutdown file + SIGINT / C-c) and SIGTERM then SIGKILL. */
  graceMs: number;
}

export interface WorkerBackend {
  kind: 'process' | 'tmux';
  /**
   * Starts the agent; resolves once its pid is known and `record` (awaited) is done. `record` is
   * called with the handle as soon as it is known: for tmux before the agent is released to run,
   * so the log names the pane first.
   */
  launch(spec: LaunchSpec, record?: (handle: WorkerHandle) => void | Promise<void>): Promise<WorkerHandle>;
  /** Resolves when the worker has ended; works for a handle from an earlier orchestrator too. */
  wait(handle: WorkerHandle, spec: LaunchSpec): Promise<WorkerExit>;
  isAlive(handle: WorkerHandle): Promise<boolean>;
  /** Polite request, grace, SIGTERM to the process group, SIGKILL; resolves when gone. */
  stop(handle: WorkerHandle, options: StopOptions): Promise<void>;
  /** Ends what the backend keeps for launching (the workers it started run on); resolves once it is gone; optional. */
  close?(): void | Promise<void>;
}

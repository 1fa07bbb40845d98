// The zod schema of `.team/config.json` (SPEC section 5); each default says why.
import { z } from 'zod';
import { PERMISSION_LEVELS, STAGES } from '../workers/types.js';
import { ADAPTER_NAMES } from '../workers/adapters/index.js';
import { COST_MODES, MAX_BEST_OF } from '../src/log/schema.js';
import { modelsSchema, routingSchema } from './routing.js';

const positiveInt = z.number().int().positive();

// One named agent backend (`agents.<name>`); also what an attempt job carries to its worker.
export const agentSchema = z.strictObject({
  // One of the catalogue's names; held as the string an AgentConfig's adapter is (a name this schema took).
  adapter: z.enum(ADAPTER_NAMES) as z.ZodType<string>,
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  model: z.string().min(1).optional(),
  /** A raw CLI permission value for every stage; wins over `permissions`. */
  permissionMode: z.string().min(1).optional(),
  /** Per stage: read, edit or run (edit and run commands). Defaults: plan, prd, review read; exec, verify, fix run. */
  permissions: z.partialRecord(z.enum(STAGES), z.enum(PERMISSION_LEVELS)).optional(),
  maxTurns: positiveInt.optional(),
  maxBudgetUsd: z.number().positive().optional(),
  promptVia: z.enum(['file', 'arg', 'stdin']).optional(),
  /** `acp` only: the sign-in method (an id of the agent's authMethods) its session is authenticated with. */
  authMethod: z.string().min(1).optional(),
  scenario: z.string().min(1).optional(),
  /** Run this agent's workers in tmux panes instead of headless processes. */
  tmux: z.boolean().optional(),
  /** The team tools (`team mcp`) in the worker's CLI; default on for claude, codex, gemini, opencode. */
  teamTools: z.boolean().optional(),
})
  // The command adapter has nothing to run without it: refused here, not at the first attempt.
  .refine((agent) => agent.adapter !== 'command' || agent.command !== undefined, { message: 'the command adapter needs a command', path: ['command'] })
  // The acp adapter starts the agent its command names, in ACP mode: there is no default.
  .refine((agent) => agent.adapter !== 'acp' || agent.command !== undefined, { message: 'the acp adapter needs the command that starts the agent in ACP mode (e.g. "gemini" with args ["--acp"])', path: ['command'] });

// An OTLP/HTTP receiver's base URL: http:// or https://, with no credentials in it (headers go in OTEL_EXPORTER_OTLP_HEADERS).
export function isOtlpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

// A PostgreSQL connection URL: postgres:// or postgresql://, with a host (or ?host= for a socket folder).
export function isPostgresUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && (url.hostname !== '' || url.searchParams.has('host'));
  } catch {
    return false;
  }
}

// The roles stage routing adds that have a built-in template of their own (config/prompts/<role>.md).
export const ROLE_TEMPLATES = ['explore', 'critic', 'security-reviewer', 'code-reviewer', 'debugger', 'selector'] as const;

// The prompt templates a config may override (config/prompts/<name>.md): each stage's, the plan's
// architect's, and each routed role's that has one of its own (a stage's override leaves these alone).
export const PROMPT_TEMPLATES = ['team-plan', 'team-prd', 'team-exec', 'team-verify', 'team-fix', 'ralph-review', 'plan-architect', ...ROLE_TEMPLATES] as const;

export const configSchema = z.strictObject({
  team: z
    .strictObject({
      /** The field settled on 20 workers at most; more only thrash one machine. */
      maxAgents: positiveInt.max(20).default(20),
      /** A plan larger than this is a planner gone wrong, not a plan. */
      maxTasks: positiveInt.default(50),
      defaultAgentType: z.string().min(1).default('executor'),
      /** Workers when `team "task"` names no N. */
      defaultWorkers: positiveInt.max(20).default(3),
      /** How often a live run refreshes liveness and progress. */
      monitorIntervalMs: positiveInt.default(30_000),
      /** Grace between a polite stop request and SIGTERM / SIGKILL. */
      shutdownTimeoutMs: z.number().int().nonnegative().default(15_000),
      /** Bounded fix loop: then the run fails, with no extension. */
      maxFixLoops: z.number().int().nonnegative().default(3),
      /** A failed task is retried as a new attempt up to this many attempts. */
      maxTaskAttempts: positiveInt.default(2),
      /** fsync every event file and its folder: durable across power loss, slower. */
      fsync: z.boolean().default(true),
      /** Wall-clock cap of one attempt: a CLI that only retries (or hangs while printing) is killed. */
      attemptTimeoutMs: positiveInt.default(3_600_000),
      /** The cap per stage where it differs, e.g. { "team-plan": 600000 }. */
      attemptTimeoutMsPerStage: z.partialRecord(z.enum(STAGES), positiveInt).default({}),
      /** Where workers run unless an agent says otherwise. */
      mode: z.enum(['headless', 'tmux']).default('headless'),
      /** Workers in git worktrees or one shared checkout; unset: worktrees when the project is a git repository and more than one worker runs. */
      isolation: z.enum(['worktree', 'none']).optional(),
      /**
       * The OS fence around every attempt (bubblewrap, docs/fence.md): auto, on where it can be built
       * (a run says once when it cannot); required, a run refuses to start unfenced; off, none.
       */
      fence: z.enum(['auto', 'required', 'off']).default('auto'),
      /** More places the fence leaves writable for every attempt (a package cache such as ~/.npm, a shared data folder): absolute, or ~/ for the home. */
      fenceWritable: z.array(z.string().refine((path) => path.startsWith('/') || path.startsWith('~/'), { message: 'an absolute path, or one under ~/' })).default([]),
      /** Where runs are kept: unset, the files under .team/runs; a postgres:// URL, that database (docs/scale-out.md). */
      store: z.string().refine(isPostgresUrl, { message: 'not a PostgreSQL URL: postgres://user:password@host:port/database' }).optional(),
      /** With a store: how long the run's writer waits for the store to come back (a restart, a network gone) before the run stops, resumable. */
      storeOutageMs: z.number().int().min(1_000).default(60_000),
      /** With a store: the git remote (its name in every clone) the run's branches go through between the writer and the team workers. */
      remote: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, { message: 'not a git remote name (letters, digits, . _ -)' }).optional(),
      /** Each role's model tier from `models` (economy, balanced, quality); unset: every agent's own model. */
      costMode: z.enum(COST_MODES).optional(),
      /** A hard cap of a run's spend: past it no attempt starts and the run stops for a decision (exit 4). Unset: none. */
      budget: z
        .strictObject({
          usd: z.number().positive().optional(),
          tokens: positiveInt.optional(),
          /** stop: running attempts get the graceful stop; finish: they are let finish. */
          onExceed: z.enum(['stop', 'finish']).default('stop'),
        })
        .refine((b) => b.usd !== undefined || b.tokens !== undefined, { message: 'a budget needs usd or tokens' })
        .optional(),
      /**
       * The best of N for every planned task that names none (`--best-of`, docs/commands.md#best-of-n):
       * this many candidate attempts at once, each in its own worktree, and a selector merges the best. 1: one attempt at a time.
       */
      bestOf: positiveInt.max(MAX_BEST_OF).default(1),
      /** A rate limit that lasts this long (back-offs included) fails the run: the provider will not let it on. */
      rateLimitGiveUpMs: positiveInt.default(1_800_000),
      /**
       * The run's live OpenTelemetry export (docs/commands.md#traces): on where `endpoint` or the
       * standard OTEL_EXPORTER_OTLP_ENDPOINT names a receiver; `enabled: false` turns it off whatever they say.
       */
      telemetry: z
        .strictObject({
          enabled: z.boolean().default(true),
          /** The OTLP/HTTP receiver's base URL, as OTEL_EXPORTER_OTLP_ENDPOINT (/v1/traces is added); wins over the variables. */
          endpoint: z.string().refine(isOtlpUrl, { message: 'not an OTLP/HTTP URL with no credentials in it: http://host:4318' }).optional(),
          /** As OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf (the default) or http/json. */
          protocol: z.enum(['http/protobuf', 'http/json']).optional(),
          /** Spans carry the run's task and the agents' evidence (as OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). */
          content: z.boolean().default(false),
        })
        .prefault({}),
    })
    .prefault({}),
  ralph: z
    .strictObject({
      /** A hard cap: a loop that extends itself never ends. */
      maxIterations: positiveInt.default(10),
    })
    .prefault({}),
  watchdog: z
    .strictObject({
      /** Silent this long: the attempt is marked stalled. */
      statusCheckMs: positiveInt.default(300_000),
      /** Silent this long: the attempt is killed and retried. */
      reassignMs: positiveInt.default(600_000),
    })
    .prefault({}),
  verify: z
    .strictObject({
      /** Gate commands run in the project by `sh -c`; all must exit 0. */
      commands: z.array(z.string().min(1)).default([]),
      /** One gate command may take this long before it counts as failed. */
      timeoutMs: positiveInt.default(600_000),
    })
    .prefault({}),
  agents: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/), agentSchema).default({}),
  roles: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/), z.string().min(1)).default({}),
  /** Stage routing: reviewers in verify, the debugger in fix (config/routing.ts). */
  routing: routingSchema,
  /** Model tiers per agent or CLI, for the cost mode (config/routing.ts; claude, codex and gemini have built-in tiers). */
  models: modelsSchema,
  /** Prompt template overrides per template (a stage's, or a routed role's of its own): a path relative to the config file. */
  prompts: z.partialRecord(z.enum(PROMPT_TEMPLATES), z.string().min(1)).default({}),
});

export type TeamConfig = z.infer<typeof configSchema>;
export type AgentEntry = z.infer<typeof agentSchema>;

// Routing: which agent runs each role, and how each agent name becomes an adapter and its config.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { AgentEntry, TeamConfig } from '../../../config/schema.js';
import { UsageError } from '../../sys/errors.js';
import { agentsByName, getAdapter, pathPreference } from '../../../workers/adapters/index.js';
import { sim } from '../../../workers/sim/adapter.js';
import type { AgentAdapter, AgentConfig } from '../../../workers/types.js';
import { didYouMean } from '../../../config/did-you-mean.js';

// The roles the pipeline itself uses; planners may name others, which run on the default agent.
export const PIPELINE_ROLES = ['planner', 'analyst', 'executor', 'verifier', 'architect'] as const;
// Roles stage routing adds: with no agent of their own (config, --agent), they run on their stage's default role's.
export const ROUTED_ROLES = ['explore', 'critic', 'debugger', 'security-reviewer', 'code-reviewer'] as const;

// Agents tried in this order when a role has none configured (claude, opencode, codex, gemini).
const PATH_PREFERENCE = pathPreference();

// Agents usable by their own name: each is its adapter.
const BUILTIN: Record<string, string> = Object.fromEntries(agentsByName({ sim }).map((name) => [name, name]));

export interface Routing {
  agentType: string;
  agents: Record<string, string>;
  defaultAgent: string;
  /** The agent names the config knows (built-in and configured), for the planner's task tags. */
  known: string[];
}

// Resolves every role's agent for a run; stops with a how-to when no agent can be found.
export function resolveRouting(config: TeamConfig, typeArg: string | undefined, agentFlag: string | undefined, env: NodeJS.ProcessEnv = process.env): Routing {
  if (agentFlag !== undefined && !isAgentName(config, agentFlag)) {
    throw new UsageError(`--agent: unknown agent "${agentFlag}"${didYouMean(agentFlag, knownAgents(config))}; use one of ${knownAgents(config).join(', ')} or add it under "agents" in .team/config.json`);
  }
  let agentType = typeArg ?? config.team.defaultAgentType;
  const agents: Record<string, string> = {};
  const routed = new Set<string>(ROUTED_ROLES);
  const roles = new Set<string>([...PIPELINE_ROLES, ...Object.keys(config.roles).filter((r) => !routed.has(r))]);
  for (const role of ROUTED_ROLES) {
    const own = agentFlag ?? config.roles[role];
    if (own) agents[role] = own;
  }
  if (typeArg !== undefined && !roles.has(typeArg) && !routed.has(typeArg)) {
    if (!isAgentName(config, typeArg)) {
      throw new UsageError(`N:agent-type: "${typeArg}" is neither a role (${[...roles].join(', ')}) nor an agent (${knownAgents(config).join(', ')})${didYouMean(typeArg, [...roles, ...knownAgents(config)])}`);
    }
    agents.executor = typeArg;
    agents.debugger = typeArg;
    agentType = 'executor';
  }
  for (const role of roles) agents[role] ??= agentFlag ?? config.roles[role] ?? '';
  // A role with no agent of its own runs on the first CLI found on PATH, else on the agent-type's
  // (or the executor's) configured agent; with neither, the run does not start.
  const configured = agents[agentType] || agents.executor || undefined;
  let found: string | undefined;
  for (const role of roles) {
    if (!agents[role]) agents[role] = found ??= findOnPath(env) ?? configured ?? missingAgent([...roles].filter((r) => !agents[r]));
  }
  const defaultAgent = agents[agentType] ?? agents.executor!;
  return { agentType, agents, defaultAgent, known: knownAgents(config) };
}

// The adapter and config of an agent name.
export function resolveAgent(config: TeamConfig, name: string): { adapter: AgentAdapter; agent: AgentConfig } {
  const entry: AgentEntry | undefined = config.agents[name];
  const agent: AgentConfig = entry ?? { adapter: BUILTIN[name] ?? 'command' };
  const adapter = getAdapter(agent.adapter, { sim });
  if (!adapter || (!entry && !BUILTIN[name])) throw new UsageError(`unknown agent "${name}": add it under "agents" in .team/config.json`);
  return { adapter, agent };
}

// An attempt's agent: its name's adapter and config, on the model the cost mode chose for its role.
export function resolveAttemptAgent(config: TeamConfig, input: { agent: string; model?: string }): { adapter: AgentAdapter; agent: AgentConfig } {
  const resolved = resolveAgent(config, input.agent);
  return input.model === undefined ? resolved : { ...resolved, agent: { ...resolved.agent, model: input.model } };
}

// True when `name` is a built-in agent or one of the config's.
export function isAgentName(config: TeamConfig, name: string): boolean {
  return name in config.agents || name in BUILTIN;
}

function knownAgents(config: TeamConfig): string[] {
  return [...new Set([...Object.keys(BUILTIN), ...Object.keys(config.agents)])];
}

// The first of claude, opencode, codex, gemini on PATH.
export function findOnPath(env: NodeJS.ProcessEnv): string | undefined {
  return PATH_PREFERENCE.find((name) => isOnPath(name, env));
}

// True when an executable `name` is in one of PATH's folders.
export function isOnPath(name: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && isExecutable(join(dir, name)));
}

// True when `path` may be executed by this process.
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function missingAgent(roles: string[]): never {
  throw new UsageError(
    `no agent configured and none of claude, opencode, codex, gemini found on PATH (roles without an agent: ${roles.join(', ')}).\n` +
      'Configure one: pass --agent sim (the built-in simulator), or in .team/config.json set\n' +
      '  { "roles": { "executor": "codex", "planner": "claude" } }\n' +
      'or define your own under "agents": { "mine": { "adapter": "command", "command": "./my-agent" } }',
  );
}

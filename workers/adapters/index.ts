// The catalogue of agent CLIs: each adapter with its record (`facts`), from which every list of CLIs
// derives (the config's adapter names, routing, the cost modes' tiers, `team doctor`, `team init`).
// A new CLI is its adapter file and one line here. `sim` lives in workers/sim and is passed in by the
// runtime.
import type { AgentAdapter, CliFacts } from '../types.js';
import { acp } from './acp.js';
import { aider } from './aider.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { command } from './command.js';
import { gemini } from './gemini.js';
import { opencode } from './opencode.js';

export { lastFencedJson } from './fenced-json.js';

// Every adapter this folder provides, by its name.
export const CLI_ADAPTERS = { claude, codex, gemini, opencode, aider, command, acp } satisfies Record<string, AgentAdapter>;

// The name of an adapter: one of the catalogue's, or the sim agent's.
export type AdapterName = keyof typeof CLI_ADAPTERS | 'sim';

// Every adapter name a config may give (`agents.<name>.adapter`), in the catalogue's order.
export const ADAPTER_NAMES: readonly AdapterName[] = [...(Object.keys(CLI_ADAPTERS) as Array<keyof typeof CLI_ADAPTERS>), 'sim'];

// Every adapter, the sim agent's included (it lives in workers/sim).
function allAdapters(extra: Record<string, AgentAdapter>): AgentAdapter[] {
  return [...Object.values(CLI_ADAPTERS), ...Object.values(extra)];
}

// The names usable as agents with no `agents` entry: each CLI whose record says so, under its own name.
export function agentsByName(extra: Record<string, AgentAdapter> = {}): string[] {
  return allAdapters(extra).filter((a) => a.facts?.byName).map((a) => a.name);
}

// The CLIs tried on PATH when a role has no agent, in their records' order.
export function pathPreference(): string[] {
  return Object.values(CLI_ADAPTERS).filter((a) => a.facts?.pathRank !== undefined).sort((a, b) => a.facts!.pathRank! - b.facts!.pathRank!).map((a) => a.name);
}

// The CLIs whose login `team doctor` looks for, in the catalogue's order.
export function loginClis(): AgentAdapter[] {
  return Object.values(CLI_ADAPTERS).filter((a) => a.facts?.login !== undefined);
}

// The CLIs `team init` sets up (their records say where they read custom commands), in their records' order.
export function initClis(): AgentAdapter[] {
  return Object.values(CLI_ADAPTERS).filter((a) => a.facts?.init !== undefined).sort((a, b) => a.facts!.init!.rank - b.facts!.init!.rank);
}

// What `team init` writes for the CLI of that name; an error for a name with none (a caller's mistake).
export function initFacts(name: string): NonNullable<CliFacts['init']> {
  const init = getAdapter(name)?.facts?.init;
  if (init === undefined) throw new Error(`no command files for the agent CLI ${JSON.stringify(name)}`);
  return init;
}

// The adapter for a name, looked up in `extra` first (e.g. `{ sim }`) and then the CLI adapters.
export function getAdapter(name: string, extra: Record<string, AgentAdapter> = {}): AgentAdapter | undefined {
  if (Object.hasOwn(extra, name)) return extra[name];
  return Object.hasOwn(CLI_ADAPTERS, name) ? CLI_ADAPTERS[name as keyof typeof CLI_ADAPTERS] : undefined;
}

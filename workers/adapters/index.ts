// The built-in CLI adapters by name. `sim` lives in workers/sim and is passed in by the runtime.
import type { AdapterName, AgentAdapter } from '../types.js';
import { acp } from './acp.js';
import { aider } from './aider.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { command } from './command.js';
import { gemini } from './gemini.js';
import { opencode } from './opencode.js';

export { lastFencedJson } from './fenced-json.js';

// Every adapter this folder provides; `sim` is the one AdapterName missing here.
export const CLI_ADAPTERS: Record<Exclude<AdapterName, 'sim'>, AgentAdapter> = {
  claude,
  codex,
  gemini,
  opencode,
  aider,
  command,
  acp,
};

// Every adapter, the sim agent's included (it lives in workers/sim).
function allAdapters(extra: Partial<Record<AdapterName, AgentAdapter>>): AgentAdapter[] {
  return [...Object.values(CLI_ADAPTERS), ...Object.values(extra)];
}

// The names usable as agents with no `agents` entry: each CLI whose record says so, under its own name.
export function agentsByName(extra: Partial<Record<AdapterName, AgentAdapter>> = {}): AdapterName[] {
  return allAdapters(extra).filter((a) => a.facts?.byName).map((a) => a.name);
}

// The CLIs tried on PATH when a role has no agent, in their records' order.
export function pathPreference(): AdapterName[] {
  return Object.values(CLI_ADAPTERS).filter((a) => a.facts?.pathRank !== undefined).sort((a, b) => a.facts!.pathRank! - b.facts!.pathRank!).map((a) => a.name);
}

// The CLIs whose login `team doctor` looks for, in the catalogue's order.
export function loginClis(): AgentAdapter[] {
  return Object.values(CLI_ADAPTERS).filter((a) => a.facts?.login !== undefined);
}

// The adapter for a name, looked up in `extra` first (e.g. `{ sim }`) and then the CLI adapters.
export function getAdapter(
  name: AdapterName,
  extra: Partial<Record<AdapterName, AgentAdapter>> = {},
): AgentAdapter | undefined {
  return extra[name] ?? (name === 'sim' ? undefined : CLI_ADAPTERS[name]);
}

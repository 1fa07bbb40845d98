// The built-in CLI adapters by name. `sim` lives in workers/sim and is passed in by the runtime.
import type { AdapterName, AgentAdapter } from '../types.js';
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
};

// The adapter for a name, looked up in `extra` first (e.g. `{ sim }`) and then the CLI adapters.
export function getAdapter(
  name: AdapterName,
  extra: Partial<Record<AdapterName, AgentAdapter>> = {},
): AgentAdapter | undefined {
  return extra[name] ?? (name === 'sim' ? undefined : CLI_ADAPTERS[name]);
}

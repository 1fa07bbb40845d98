// The command line of an attempt's team tool server: this installation's own `team mcp`, run by
// the node that runs `team`, so that the worker's CLI needs neither `team` on its PATH nor our env.
import { fileURLToPath } from 'node:url';
import { hasTeamTools } from '../../../workers/adapters/team-tools.js';
import type { AgentAdapter, AgentConfig, TeamToolServer } from '../../../workers/types.js';

// dist/src/attempt/prepare/team-server.js → dist/src/cli.js.
const CLI_FILE = fileURLToPath(new URL('../../cli.js', import.meta.url));

// `<node> <dist/src/cli.js> mcp --attempt-dir <folder>`, or undefined for an agent without the tools.
export function teamServerFor(agent: AgentConfig, adapter: Pick<AgentAdapter, 'facts'>, attemptDir: string): TeamToolServer | undefined {
  if (!hasTeamTools(agent, adapter)) return undefined;
  return { command: process.execPath, args: [CLI_FILE, 'mcp', '--attempt-dir', attemptDir] };
}

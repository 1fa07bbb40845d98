// The command line of an attempt's team tool server: this installation's own `team mcp`, run by
// the node that runs `team`, so that the worker's CLI needs neither `team` on its PATH nor our env.
import { TEAM_BIN } from '../../sys/team-bin.js';
import { hasTeamTools } from '../../../workers/adapters/team-tools.js';
import type { AgentAdapter, AgentConfig, TeamToolServer } from '../../../workers/types.js';

// `<node> <dist/cli/team.cjs> mcp --attempt-dir <folder>`, or undefined for an agent without the tools.
export function teamServerFor(agent: AgentConfig, adapter: Pick<AgentAdapter, 'facts'>, attemptDir: string): TeamToolServer | undefined {
  if (!hasTeamTools(agent, adapter)) return undefined;
  return { command: process.execPath, args: [TEAM_BIN, 'mcp', '--attempt-dir', attemptDir] };
}

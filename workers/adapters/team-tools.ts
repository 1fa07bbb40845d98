// The team tools as each CLI is given them: the MCP server's name, its tools, and which agents
// have them unless their config says otherwise.
import type { AgentAdapter, AgentConfig } from '../types.js';

// The MCP server's name in every CLI's config: the tools' names derive from it
// (claude mcp__team__team_tasks, opencode team_team_tasks).
export const TEAM_SERVER_NAME = 'team';

// The tools `team mcp` serves.
export const TEAM_TOOL_NAMES = ['team_tasks', 'team_message', 'team_inbox', 'team_progress', 'team_reserve', 'team_done', 'team_fail'] as const;

// How long a CLI may wait for a team tool's answer (its start included) where its own bound is
// shorter (opencode: 5 s): beyond the 30 s `team mcp` waits for the run's writer to answer.
export const TEAM_CALL_TIMEOUT_MS = 60_000;

// Whether the agent's workers get the team tools: as its config says, else as its CLI's catalogue
// record says (the CLIs that speak MCP and are wired here: on by default; any other only when asked).
export function hasTeamTools(agent: AgentConfig, adapter: Pick<AgentAdapter, 'facts'>): boolean {
  return agent.teamTools ?? adapter.facts?.teamTools === true;
}

// The parts every adapter's command line shares: executable override, extra args, env, stdin.
import type { AgentCommand, AgentConfig, AgentReport } from '../types.js';

// `agent.command` replaces the CLI name, `agent.args` go last, `agent.env` is passed through.
export function makeAgentCommand(
  agent: AgentConfig,
  cliName: string,
  ownArgs: string[],
  stdinFile?: string,
): AgentCommand {
  return {
    file: agent.command ?? cliName,
    args: [...ownArgs, ...(agent.args ?? [])],
    ...(stdinFile !== undefined && { stdinFile }),
    ...(agent.env !== undefined && { env: { ...agent.env } }),
  };
}

// A report without the fields the CLI did not give, so reports compare and log cleanly.
export function makeReport(report: AgentReport): AgentReport {
  return Object.fromEntries(Object.entries(report).filter(([, value]) => value !== undefined)) as AgentReport;
}

// Any command as an agent: argv = [agent.command, ...agent.args]; the prompt by file (the agent
// reads TEAM_PROMPT_FILE), as the last argument, or on stdin. Its output is plain text.
import type { AdapterInput, AgentAdapter, AgentCommand, AgentReport } from '../types.js';

// Without `promptVia` the prompt travels only as TEAM_PROMPT_FILE: nothing to add to argv.
const DEFAULT_PROMPT_VIA = 'file';

// Builds argv from config alone; a missing `command` is a config validation bug, so it throws.
function buildCommand(input: AdapterInput): AgentCommand {
  const { agent } = input;
  if (agent.command === undefined) throw new Error('command adapter: agent.command is required');
  const via = agent.promptVia ?? DEFAULT_PROMPT_VIA;
  return {
    file: agent.command,
    args: [...(agent.args ?? []), ...(via === 'arg' ? [input.prompt] : [])],
    ...(via === 'stdin' && { stdinFile: input.promptFile }),
    ...(agent.env !== undefined && { env: { ...agent.env } }),
  };
}

// No machine output: ok, with the output as final text; the result file or fenced block decides.
function parseCommand(output: string): AgentReport {
  return { ok: true, finalText: output };
}

// The command adapter: any argv in, plain text out.
export const command: AgentAdapter = {
  name: 'command',
  build: buildCommand,
  parse: parseCommand,
};

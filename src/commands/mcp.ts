// `team mcp --attempt-dir DIR`: the team tools over MCP (stdio) for the attempt whose folder is DIR.
// The agent CLIs start it; it needs no store and no environment.
import { resolve } from 'node:path';
import { serveAttempt } from '../team-tools/server.js';
import { parseFlags, requireString } from './args/args.js';
import { TEAM_FLAGS } from './args/team-flags.js';
import { readVersion } from '../sys/version.js';

// Serves until the agent closes stdin.
export async function mcpCommand(argv: string[]): Promise<number> {
  const args = parseFlags(argv, TEAM_FLAGS.mcp, 'team mcp');
  await serveAttempt(resolve(requireString(args, 'attempt-dir', 'team mcp')), readVersion());
  return 0;
}

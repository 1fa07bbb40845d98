// The attempt's own gemini settings. gemini reads MCP servers only from settings files, and takes
// a system file only when root owns it and every folder above it: an attempt's settings are the
// user's own, in a home of the attempt's (GEMINI_CLI_HOME), whose .gemini links every other entry
// of the user's .gemini (credentials, trusted folders, policies, history) back to it.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { TeamToolServer } from '../types.js';
import { TEAM_SERVER_NAME, TEAM_TOOL_NAMES } from './team-tools.js';

// The variable gemini takes its home from instead of the user's.
export const GEMINI_HOME_VAR = 'GEMINI_CLI_HOME';
// The attempt's home, in the attempt folder.
const HOME_DIR = 'gemini-home';
// Folders of the user's home gemini reads besides .gemini (skills).
const OTHER_DIRS = ['.agents'];

// Makes the attempt's gemini home (the user's settings plus the team tool server) and returns it.
// `env` is the worker's: its GEMINI_CLI_HOME or HOME names the user's home.
export function writeGeminiHome(server: TeamToolServer, attemptDir: string, env: Record<string, string | undefined>): string {
  const userHome = env[GEMINI_HOME_VAR] || env.HOME || homedir();
  const home = join(attemptDir, HOME_DIR);
  rmSync(home, { recursive: true, force: true });
  const own = join(home, '.gemini');
  mkdirSync(own, { recursive: true });
  const user = join(userHome, '.gemini');
  const entries = existsSync(user) ? readdirSync(user) : [];
  for (const entry of entries) if (entry !== 'settings.json') symlinkSync(join(user, entry), join(own, entry));
  for (const dir of OTHER_DIRS) if (existsSync(join(userHome, dir))) symlinkSync(join(userHome, dir), join(home, dir));
  const settings = readSettings(join(user, 'settings.json'));
  // Trusted: headless gemini cannot ask to confirm a call; only the team's tools are taken.
  const team = { command: server.command, args: server.args, trust: true, includeTools: [...TEAM_TOOL_NAMES] };
  const mcpServers = { ...(isObject(settings.mcpServers) ? settings.mcpServers : {}), [TEAM_SERVER_NAME]: team };
  writeFileSync(join(own, 'settings.json'), `${JSON.stringify({ ...settings, mcpServers }, null, 2)}\n`);
  return home;
}

// A policy file (gemini --policy) that allows the team's tools by name in every approval mode:
// plan mode denies any tool its own policy does not name, and leaves those out of the model's list.
export function writeTeamPolicy(attemptDir: string): string {
  const file = join(attemptDir, POLICY_FILE);
  const names = TEAM_TOOL_NAMES.map((name) => `"${MCP_PREFIX}${TEAM_SERVER_NAME}_${name}"`).join(', ');
  writeFileSync(file, ['# The team tools of this attempt (teamline).', '[[rule]]', `toolName = [${names}]`, 'decision = "allow"', `priority = ${POLICY_PRIORITY}`, ''].join('\n'));
  return file;
}

// gemini names an MCP tool mcp_<server>_<tool>.
const MCP_PREFIX = 'mcp_';
const POLICY_FILE = 'gemini-policy.toml';
// Above plan mode's deny-all (40) and its own allowances (50-70).
const POLICY_PRIORITY = 100;

// The user's settings (JSON with comments, as gemini allows), or none.
function readSettings(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  try {
    const value: unknown = JSON.parse(stripComments(readFileSync(file, 'utf8')));
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

// The text without its // and /* */ comments (those outside strings).
function stripComments(text: string): string {
  return text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_whole, string?: string) => string ?? '');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

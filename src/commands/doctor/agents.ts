// `team doctor`'s agent CLIs: each one found on PATH with its version, and whether it is logged in
// as far as its own files and environment tell without the network. A CLI not found is a line of
// information; none at all (and no agent in the config) fails: a run would have no agent to start.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Check } from './checks.js';
import { versionOf } from './checks.js';

// The offline signs that a CLI can reach its model: API-key variables and credential files.
interface AuthSigns {
  env: string[];
  files: (env: NodeJS.ProcessEnv, home: string) => string[];
  login: string;
}

// Each CLI's signs (claude: ~/.claude/.credentials.json; codex: $CODEX_HOME/auth.json; gemini:
// ~/.gemini/oauth_creds.json; opencode: $XDG_DATA_HOME/opencode/auth.json; aider reads keys only).
const AUTH: Record<string, AuthSigns> = {
  claude: {
    env: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX'],
    files: (env, home) => [join(env.CLAUDE_CONFIG_DIR ?? join(home, '.claude'), '.credentials.json')],
    login: 'run `claude` and /login, or set ANTHROPIC_API_KEY',
  },
  codex: { env: ['OPENAI_API_KEY', 'CODEX_API_KEY'], files: (env, home) => [join(env.CODEX_HOME ?? join(home, '.codex'), 'auth.json')], login: 'run `codex login`, or set OPENAI_API_KEY' },
  gemini: {
    env: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI'],
    files: (_env, home) => [join(home, '.gemini', 'oauth_creds.json')],
    login: 'run `gemini` and sign in, or set GEMINI_API_KEY',
  },
  opencode: {
    env: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'OPENROUTER_API_KEY'],
    files: (env, home) => [join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'opencode', 'auth.json')],
    login: 'run `opencode auth login`, or set a provider key such as ANTHROPIC_API_KEY',
  },
  aider: { env: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'OPENROUTER_API_KEY', 'DEEPSEEK_API_KEY'], files: () => [], login: 'set the API key of your model, such as ANTHROPIC_API_KEY' },
};

// The agent CLIs teamline has adapters for, in the order doctor lists them.
export const AGENT_CLIS = ['claude', 'codex', 'gemini', 'opencode', 'aider'] as const;

// One check per agent CLI, then whether a run has any agent to start: a CLI found that shows a
// login, or agents named in the config (the built-in sim agent runs only the demo's script); a CLI
// with no sign of a login fails its first attempt, so CLIs found but none logged in fail this check.
// `onPath` tells whether a name is an executable on PATH.
export async function checkAgentClis(env: NodeJS.ProcessEnv, onPath: (name: string) => boolean, configured: string[]): Promise<Check[]> {
  const checks = await Promise.all(AGENT_CLIS.map((cli) => checkAgentCli(cli, env, onPath(cli))));
  const found = AGENT_CLIS.filter((cli) => onPath(cli));
  const ready = AGENT_CLIS.filter((_cli, i) => checks[i]!.status === 'ok');
  return [...checks, anyAgent(found, ready, configured)];
}

function anyAgent(found: readonly string[], ready: readonly string[], configured: string[]): Check {
  const name = 'an agent to run';
  if (ready.length > 0 || configured.length > 0) return { name, status: 'ok', detail: [...ready, ...configured.map((agent) => `${agent} (config)`)].join(', ') };
  if (found.length > 0) {
    return {
      name,
      status: 'fail',
      detail: `${found.join(', ')} ${found.length === 1 ? 'is' : 'are'} on PATH, but none shows a login, so its first attempt would fail (only the demo runs: --agent sim)`,
      fix: `log in to one: ${found.map((cli) => AUTH[cli]!.login).join('; ')}`,
    };
  }
  return {
    name,
    status: 'fail',
    detail: 'no agent CLI on PATH and none in the config, so `team "task"` has no agent to start (only the demo runs: --agent sim)',
    fix: 'install one of claude, codex, gemini, opencode, aider and log in, or name an agent in .team/config.json (docs/formats.md)',
  };
}

async function checkAgentCli(cli: string, env: NodeJS.ProcessEnv, found: boolean): Promise<Check> {
  const name = `agent ${cli}`;
  if (!found) return { name, status: 'info', detail: 'not found on PATH (optional)' };
  const version = await versionOf(cli, ['--version'], env);
  if (version.problem !== undefined) return { name, status: 'warn', detail: `found, but \`${cli} --version\` ${version.problem}`, fix: `reinstall ${cli}` };
  const auth = authOf(cli, env);
  if (auth === undefined) return { name, status: 'warn', detail: `${version.text}; no sign of a login`, fix: AUTH[cli]!.login };
  return { name, status: 'ok', detail: `${version.text}; ${auth}` };
}

// Where a CLI's login shows offline, or undefined when nothing does.
function authOf(cli: string, env: NodeJS.ProcessEnv): string | undefined {
  const signs = AUTH[cli]!;
  const variable = signs.env.find((name) => (env[name] ?? '') !== '');
  if (variable !== undefined) return `${variable} is set`;
  const file = signs.files(env, env.HOME ?? homedir()).find((path) => existsSync(path));
  return file === undefined ? undefined : `logged in (${file})`;
}

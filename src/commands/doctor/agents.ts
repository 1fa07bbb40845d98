// `team doctor`'s agent CLIs: each one found on PATH with its version, and whether it is logged in
// as far as its own files and environment tell without the network. A CLI not found is a line of
// information; none at all (and no agent in the config) fails: a run would have no agent to start.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import type { Check } from './checks.js';
import { versionOf } from './checks.js';
import { loginClis } from '../../../workers/adapters/index.js';
import type { CliFacts } from '../../../workers/types.js';

// The offline signs that a CLI can reach its model (API-key variables, credential files), from
// each CLI's catalogue record (workers/adapters/<cli>.ts).
const AUTH: Record<string, NonNullable<CliFacts['login']>> = Object.fromEntries(loginClis().map((a) => [a.name, a.facts!.login!]));

// The agent CLIs teamline has adapters for, in the order doctor lists them.
export const AGENT_CLIS: readonly string[] = Object.keys(AUTH);

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
      fix: `log in to one: ${found.map((cli) => AUTH[cli]!.how).join('; ')}`,
    };
  }
  return {
    name,
    status: 'fail',
    detail: 'no agent CLI on PATH and none in the config, so `team "task"` has no agent to start (only the demo runs: --agent sim)',
    fix: `install one of ${AGENT_CLIS.join(', ')} and log in, or name an agent in .team/config.json (docs/formats.md)`,
  };
}

async function checkAgentCli(cli: string, env: NodeJS.ProcessEnv, found: boolean): Promise<Check> {
  const name = `agent ${cli}`;
  if (!found) return { name, status: 'info', detail: 'not found on PATH (optional)' };
  const version = await versionOf(cli, ['--version'], env);
  if (version.problem !== undefined) return { name, status: 'warn', detail: `found, but \`${cli} --version\` ${version.problem}`, fix: `reinstall ${cli}` };
  const auth = authOf(cli, env);
  if (auth === undefined) return { name, status: 'warn', detail: `${version.text}; no sign of a login`, fix: AUTH[cli]!.how };
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

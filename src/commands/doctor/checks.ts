// `team doctor`'s checks of the machine and the project: each a line of data, ok or not, with the
// fix when not. `fail` is a required check that does not pass; `warn` and `info` never fail doctor.
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { execa } from 'execa';
import { ConfigError } from '../../../config/errors.js';
import { loadConfig, type LoadedConfig } from '../../../config/load.js';

export interface Check {
  name: string;
  status: 'ok' | 'fail' | 'warn' | 'info';
  detail: string;
  fix?: string;
}

// The oldest Node teamline runs on (package.json engines).
const NODE_MIN = [20, 5] as const;
// How long a `--version` (gemini's takes ~3 s) or a login shell may take before it counts as hung.
const PROBE_MS = 15_000;

// The first line a command prints, or why there is none (not found, an exit code, too slow).
export async function versionOf(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ text: string; problem?: string }> {
  const result = await execa(file, args, { env, extendEnv: false, reject: false, stdin: 'ignore', timeout: PROBE_MS });
  if (result.timedOut) return { text: '', problem: `did not answer in ${PROBE_MS / 1000} s` };
  if (result.exitCode !== 0) return { text: '', problem: result.code === 'ENOENT' ? 'was not found' : `exited ${result.exitCode ?? result.signal}` };
  return { text: `${String(result.stdout)}\n${String(result.stderr)}`.split('\n').map((line) => line.trim()).find((line) => /\d+\.\d+/.test(line)) ?? '' };
}

// Node as old as package.json's engines allow, or newer.
export function checkNode(version: string = process.version): Check {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const ok = major > NODE_MIN[0] || (major === NODE_MIN[0] && minor >= NODE_MIN[1]);
  return ok ? { name: 'node', status: 'ok', detail: version } : { name: 'node', status: 'fail', detail: `${version} is older than ${NODE_MIN.join('.')}`, fix: 'install Node 20.5 or later' };
}

// git (required: worktrees, branches, team land) or tmux (for --tmux only) on PATH.
export async function checkTool(name: 'git' | 'tmux', env: NodeJS.ProcessEnv): Promise<Check> {
  const version = await versionOf(name, [name === 'git' ? '--version' : '-V'], env);
  if (version.problem === undefined) return { name, status: 'ok', detail: version.text };
  if (name === 'git') return { name, status: 'fail', detail: `git ${version.problem}`, fix: 'install git' };
  return { name, status: 'info', detail: `tmux ${version.problem}: only --tmux needs it`, fix: 'install tmux to watch workers in panes' };
}

// `team` on this PATH (required: the command files call it), and on a login shell's (Codex runs
// commands through `bash -lc`, whose profile may set another PATH).
export async function checkTeamOnPath(env: NodeJS.ProcessEnv, onPath: (name: string) => string | undefined): Promise<Check[]> {
  const here = onPath('team');
  const first: Check = here
    ? { name: 'team on PATH', status: 'ok', detail: here }
    : { name: 'team on PATH', status: 'fail', detail: 'not found, so /team in an agent cannot run it', fix: 'npm install -g . in the teamline clone (docs/install.md)' };
  const login = await execa('bash', ['-lc', 'command -v team'], { env, extendEnv: false, reject: false, stdin: 'ignore', timeout: PROBE_MS });
  const found = String(login.stdout).trim().split('\n').pop() ?? '';
  if (login.code === 'ENOENT') return [first, { name: 'team in a login shell', status: 'info', detail: 'no bash to ask' }];
  const second: Check =
    login.exitCode === 0 && found !== ''
      ? { name: 'team in a login shell', status: 'ok', detail: found }
      : { name: 'team in a login shell', status: 'warn', detail: 'bash -lc cannot find team (Codex runs commands so)', fix: here ? `add a line export PATH="${dirname(here)}:$PATH" to ~/.profile` : 'put the folder of team on PATH in ~/.profile' };
  return [first, second];
}

// The config loads (the project's .team/config.json, or --config FILE).
export function checkConfig(projectDir: string, file: string | undefined): { check: Check; loaded?: LoadedConfig } {
  try {
    const loaded = loadConfig(projectDir, file);
    return { check: { name: 'config', status: 'ok', detail: loaded.file ?? 'defaults (no .team/config.json)' }, loaded };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { check: { name: 'config', status: 'fail', detail: error.message.replace(/\s*\n\s*/g, ' '), fix: 'correct the field named' } };
  }
}

// `.team/` is ignored by git in a repository (else `git add -A` takes the run files).
export async function checkTeamIgnored(projectDir: string, env: NodeJS.ProcessEnv): Promise<Check> {
  const name = '.team/ ignored';
  const inside = await execa('git', ['rev-parse', '--is-inside-work-tree'], { cwd: projectDir, env, extendEnv: false, reject: false });
  if (inside.exitCode !== 0 || String(inside.stdout).trim() !== 'true') return { name, status: 'info', detail: 'not a git repository' };
  const ignored = await execa('git', ['check-ignore', '--quiet', '--no-index', join('.team', 'runs', 'x')], { cwd: projectDir, env, extendEnv: false, reject: false });
  if (ignored.exitCode === 0) return { name, status: 'ok', detail: 'git ignores .team/' };
  // Nothing there yet: the first command that writes under .team/ excludes it first.
  if (!existsSync(join(projectDir, '.team'))) return { name, status: 'info', detail: 'no .team/ yet: the first run (or team init) adds it to .git/info/exclude before writing there' };
  return { name, status: 'fail', detail: 'git would commit teamline\'s run files', fix: 'team init adds .team/ to .git/info/exclude; or add a line .team/ to .gitignore' };
}

// The store's database answers (with --store URL or team.store); pg loads only here.
export async function checkStore(url: string): Promise<Check> {
  const { probeStore } = await import('../../store/open.js');
  try {
    return { name: 'store', status: 'ok', detail: `${await probeStore(url, 'teamline doctor')} answers` };
  } catch (error) {
    return { name: 'store', status: 'fail', detail: (error as Error).message, fix: 'start the database, or correct --store / team.store' };
  }
}

// The first executable `name` in PATH's folders.
export function whichOnPath(env: NodeJS.ProcessEnv, isExecutable: (path: string) => boolean): (name: string) => string | undefined {
  return (name) => (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '').map((dir) => join(dir, name)).find(isExecutable);
}

// Whether this machine can fence the attempts (team.fence): ok, a warning where the run would go
// unfenced, a failure where the config requires the fence.
export function checkFence(setting: 'auto' | 'required' | 'off', probe: () => { ok: true } | { ok: false; why: string }): Check {
  if (setting === 'off') return { name: 'fence', status: 'info', detail: 'off (team.fence): attempts run unfenced' };
  const found = probe();
  if (found.ok) return { name: 'fence', status: 'ok', detail: 'bubblewrap fences every attempt: it writes only where its work lives' };
  const fix = 'install bubblewrap (Debian: apt-get install bubblewrap), or allow user namespaces; team.fence "off" runs unfenced on purpose';
  return { name: 'fence', status: setting === 'required' ? 'fail' : 'warn', detail: `${found.why}; attempts run unfenced`, fix };
}

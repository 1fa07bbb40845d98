// One user of teamline and the four agent CLIs, set up as the README says: a home made from
// /etc/skel (whose ~/.profile puts ~/.local/bin on a login shell's PATH), teamline's tarball
// installed into ~/.local (the user install), each CLI pointed at one scripted model server, and in
// each project (a git repository with a commit, two workers) only what `team init` wrote, plus the
// once-only steps the README names: trust the folder in gemini, trust the project in codex.
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { readRunFiles, type RunFiles } from '../../src/log/read.js';
import { runPaths } from '../../src/log/write.js';
import { installTeam, systemPath } from '../helpers/installed-team.js';
import { allRoles, shellAgent } from '../helpers/sim-project.js';
import { makeCliHome, type CliHome, type RealCli } from './clis.js';
import { REAL_CLI_BIN } from './install.mjs';
import { OK_KEY } from './model-server/server.js';

// A CLI session that starts a run and follows it, on a busy machine.
export const SESSION_TIMEOUT_MS = 240_000;

export interface Outcome {
  exitCode?: number;
  stdout: string;
  stderr: string;
}

export interface UserProject {
  dir: string;
  /** The file whose creation lets the gated executor finish. */
  release: string;
  /** The latest run's id (.team/runs/current), the ids of every run, and a run's events. */
  runId(): string;
  runIds(): string[];
  events(runId: string): RunFiles['events'];
  /** `team <args>` of the installed teamline, in the project, as the user runs it. */
  team(args: string[]): Promise<Outcome>;
  /** One headless session of the CLI running `/<command> <args>` (codex: `$team <command> <args>`). */
  slash(command: string, args?: string): Promise<Outcome>;
}

export interface TeamUser {
  home: string;
  /** ~/.local/bin, where the install put `team`. */
  bin: string;
  /** The env of the user's shell for `cli` (the marker goes to every process of the user's runs). */
  env(cli: RealCli): Record<string, string>;
  /** A new project set up for `cli`; `gated`: the executor works until `release` exists. */
  project(cli: RealCli, options?: { gated?: boolean }): Promise<UserProject>;
  remove(): void;
}

// How each CLI runs one command headless, with only its defaults and what `team init` wrote.
const SESSION: Record<RealCli, (command: string, args: string) => string[]> = {
  claude: (command, args) => ['-p', `/${command}${args ? ` ${args}` : ''}`],
  gemini: (command, args) => ['-p', `/${command}${args ? ` ${args}` : ''}`],
  opencode: (command, args) => ['run', '--command', command, ...(args ? [args] : [])],
  // Codex's normal sandbox; its skill is named in the message.
  codex: (command, args) => ['exec', '--sandbox', 'workspace-write', `$team ${command === 'team' ? '' : `${command} `}${args}`.trim()],
};

// Every stage on the sim agent with two independent tasks; the executor optionally gated.
function writeConfig(dir: string, release: string, gated: boolean): void {
  const scenario = join(dir, '.team', 'sim-scenario.json');
  writeFileSync(scenario, JSON.stringify({ name: 'two-tasks', plan: { tasks: [{ id: 't1', title: 'First' }, { id: 't2', title: 'Second' }] }, defaults: { sleepMs: 50 } }));
  const waits = `while [ ! -e '${release}' ]; do sleep 0.1; done; printf '%s' '{"status":"completed","summary":"released","evidence":"released"}' > "$TEAM_RESULT_FILE"`;
  const agents = { sim: { adapter: 'sim', scenario }, gated: shellAgent(waits) };
  writeFileSync(join(dir, '.team', 'config.json'), JSON.stringify({ team: { fsync: false }, agents, roles: allRoles('sim', gated ? { executor: 'gated' } : {}) }));
}

// Makes the user, installs teamline into ~/.local, and points every CLI at `serverUrl`.
export async function makeTeamUser(serverUrl: string, marker: string): Promise<TeamUser> {
  const home = mkdtempSync(join(tmpdir(), 'teamline-user-'));
  cpSync('/etc/skel', home, { recursive: true });
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = A User\n\temail = user@example.com\n[init]\n\tdefaultBranch = main\n');
  const scratch = mkdtempSync(join(tmpdir(), 'teamline-pack-'));
  try {
    await installTeam(scratch, join(home, '.local'));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const homes = new Map<RealCli, CliHome>();
  const cliHome = (cli: RealCli) => homes.get(cli) ?? homes.set(cli, makeCliHome(cli, serverUrl, home)).get(cli)!;
  const path = [join(home, '.local', 'bin'), REAL_CLI_BIN, ...systemPath()].join(delimiter);
  // The user's tmux servers (workers in panes) keep their sockets here, apart from any other tmux.
  const tmux = join(home, 'tmux');
  mkdirSync(tmux);
  const env = (cli: RealCli) => ({ ...cliHome(cli).env(OK_KEY), PATH: path, TMUX_TMPDIR: tmux, TEAMLINE_TEST_RUN: marker });
  const run = async (file: string, args: string[], cli: RealCli, cwd: string, timeout?: number): Promise<Outcome> => {
    const result = await execa(file, args, { cwd, env: { ...env(cli), PWD: cwd }, extendEnv: false, reject: false, stdin: 'ignore', timeout });
    return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
  };
  const project = async (cli: RealCli, options: { gated?: boolean } = {}): Promise<UserProject> => {
    cliHome(cli);
    const dir = mkdtempSync(join(home, 'project-'));
    const git = (...args: string[]) => run('git', args, cli, dir);
    await git('init', '--quiet');
    writeFileSync(join(dir, 'README.md'), '# a project\n');
    await git('add', 'README.md');
    await git('commit', '--quiet', '-m', 'base');
    mkdirSync(join(dir, '.team'));
    const release = join(dir, '.team', 'release');
    writeConfig(dir, release, options.gated === true);
    const team = (args: string[]) => run('team', args, cli, dir);
    // The README: `team init --<cli>` in the project; gemini's --global writes the user policy.
    const init = await team(['init', `--${cli}`, ...(cli === 'gemini' ? ['--global'] : [])]);
    if (init.exitCode !== 0) throw new Error(`team init --${cli} exited ${init.exitCode}: ${init.stderr}`);
    trust(home, cli, dir);
    const runs = join(dir, '.team', 'runs');
    const runId = () => readFileSync(join(runs, 'current'), 'utf8').trim();
    const runIds = () => (existsSync(runs) ? readdirSync(runs).filter((name) => name !== 'current') : []);
    const events = (id: string) => readRunFiles(runPaths(dir, id)).events;
    return { dir, release, runId, runIds, events, team, slash: (command, args = '') => run(join(REAL_CLI_BIN, cli), SESSION[cli](command, args), cli, dir, SESSION_TIMEOUT_MS) };
  };
  return { home, bin: join(home, '.local', 'bin'), env, project, remove: () => rmSync(home, { recursive: true, force: true }) };
}

// Polls until `ready`; false when the time is up.
export async function until(ready: () => boolean, ms = SESSION_TIMEOUT_MS): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(200)) if (ready()) return true;
  return false;
}

// What the user says yes to at the CLI's first start in a folder: gemini's trusted folder, codex's trusted project.
function trust(home: string, cli: RealCli, dir: string): void {
  if (cli === 'gemini') {
    const file = join(home, '.gemini', 'trustedFolders.json');
    const trusted = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
    writeFileSync(file, JSON.stringify({ ...trusted, [dir]: 'TRUST_FOLDER' }, null, 2));
  }
  if (cli === 'codex') appendFileSync(join(home, '.codex', 'config.toml'), `\n[projects."${dir}"]\ntrust_level = "trusted"\n`);
}

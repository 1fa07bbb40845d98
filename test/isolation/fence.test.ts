// The OS fence around every attempt (bubblewrap, real: .ci/run installs Debian's `bubblewrap`), as a
// user gets it by default: a git repository, two workers in worktrees. A hostile agent that resets
// the user's checkout, discards their uncommitted edit, writes into it, forces one of their
// branches, deletes the run's integration branch and appends to ~/.bashrc finds every write
// refused: the checkout, its uncommitted and untracked files, the branches and the home folder are
// byte for byte as they were, and the run says what was refused. Where the fence cannot be built
// (here: a user namespace that allows no nested one, as in many containers), the run says so, and
// team.fence "required" refuses to start.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, hasSpawned } from '../helpers/sim-project.js';
import { GIT_ENV, makeGitProject, type GitProject } from '../helpers/git-project.js';
import { CLI, runTeam } from '../helpers/team.js';
import { waitFor } from '../helpers/wait-event.js';

const homes: string[] = [];
afterAll(() => {
  removeProjects();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

// The user's checkout, as an agent in a worktree finds it.
const CHECKOUT = 'top=$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")';

// Every harm at once, each on its own (`;`): the agent goes on past each refusal and completes.
const HOSTILE = [
  CHECKOUT,
  'git -C "$top" reset -q --hard HEAD',
  'git -C "$top" checkout -- notes.txt',
  'echo appended >> "$top/README.md"',
  'echo stray > "$top/stray.txt"',
  'rm -f "$top/untracked.txt"',
  'c=$(echo stray | git commit-tree "HEAD^{tree}" -p HEAD) && git push --force "$top" "$c:refs/heads/side"',
  'git -C "$top" update-ref refs/heads/main HEAD',
  'git update-ref -d "refs/heads/team/$TEAM_RUN_ID"',
  'echo "alias ls=rm" >> "$HOME/.bashrc"',
  'true',
].join('; ');

// A scratch home for the run, so that an unfenced agent could never touch the machine's own.
function scratchHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'teamline-fence-home-'));
  homes.push(home);
  writeFileSync(join(home, '.bashrc'), '# the user\'s shell setup\n');
  return home;
}

// Everything of the user's a run must leave alone: every file of the checkout (not .team and the
// checkpoint, which are teamline's), its git status, and every branch that is not the run's.
function userState(project: GitProject, home: string): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(project.dir, path);
      if (['.git', '.team', '.checkpoints'].includes(rel)) continue;
      if (statSync(path).isDirectory()) walk(path);
      else files.push(`${rel}: ${readFileSync(path, 'utf8')}`);
    }
  };
  walk(project.dir);
  const branches = project.git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads').split('\n').filter((line) => !line.startsWith('refs/heads/team/'));
  const status = project.git('status', '--porcelain', '--', '.', ':!.team', ':!.checkpoints');
  return [...files, ...branches, status, `HEAD ${project.git('symbolic-ref', 'HEAD')}`, `bashrc: ${readFileSync(join(home, '.bashrc'), 'utf8')}`].join('\n');
}

function team(project: GitProject, home: string, ...args: string[]) {
  return runTeam(args, { cwd: project.dir, env: { ...GIT_ENV, TEAM_SIM_LEDGER: project.ledgerFile, HOME: home } });
}

describe('the fence around every worker', () => {
  it('keeps a hostile agent in a worktree from everything of the user\'s: checkout, uncommitted and untracked files, branches, home', async () => {
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', acceptance: ['a'] }, { id: 't2', acceptance: ['b'] }] }, rules: [{ match: { task: 't1' }, do: { shell: HOSTILE } }] }, {}, { 'notes.txt': 'committed\n', 'README.md': 'readme\n' });
    project.git('branch', 'side');
    project.write('notes.txt', 'committed\nmy uncommitted edit\n');
    project.write('untracked.txt', 'mine, never added\n');
    const home = scratchHome();
    const before = userState(project, home);
    const result = await team(project, home, '2:executor', 'attack the user checkout', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(userState(project, home)).toBe(before);
    const run = project.readRun();
    expect(eventsOf(run.events, 'run_started')[0]!.fence).toEqual({ on: true });
    // The run's own work is whole: both tasks merged on the integration branch the agent tried to delete.
    expect(project.git('show', `team/${run.runId}:sim-output/t2.txt`)).toContain('task t2');
    expect(project.git('show', `team/${run.runId}:sim-output/t1.txt`)).toContain('task t1');
    // What was refused, recorded and told.
    const [refused, ...more] = eventsOf(run.events, 'fence_refused');
    expect(more).toEqual([]);
    expect(refused).toMatchObject({ task_id: 't1', attempt: 1 });
    const git = join(project.dir, '.git');
    for (const path of [join(git, 'index.lock'), join(project.dir, 'README.md'), join(project.dir, 'stray.txt'), join(home, '.bashrc'), join(project.dir, 'untracked.txt'), join(git, 'refs/heads/main.lock'), join(git, 'refs/heads/side.lock'), join(git, 'packed-refs.lock')]) expect(refused!.paths).toContain(path);
    expect(result.stderr).toContain(`needs attention: the fence refused writes of t1 a1 on worker-1 outside its work: ${refused!.paths.join(', ')}; your checkout, branches and home are as they were`);
    const status = await team(project, home, 'status');
    expect(status.stdout).toContain(`needs attention:\n  the fence refused writes of t1 a1 on worker-1 outside its work: ${refused!.paths.join(', ')}`);
    expect((await team(project, home, 'wait')).stdout).toContain(`needs attention: the fence refused writes of t1 a1 on worker-1 outside its work: ${refused!.paths.join(', ')}`);
    // Nothing of the checkout changed: once the user committed their edit, land merges without asking.
    project.git('add', 'notes.txt', 'untracked.txt');
    project.git('commit', '-q', '-m', 'my edit');
    const land = await team(project, home, 'land');
    expect(land.exitCode, land.stderr).toBe(0);
    expect(readFileSync(join(project.dir, 'sim-output/t1.txt'), 'utf8')).toContain('task t1');
  });

  it('lands a fenced run beside the user\'s own commit during it without --acknowledge, and says what moved', async () => {
    const gate = `${CHECKOUT} && until [ -e "$top/.team/release" ]; do sleep 0.05; done`;
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', acceptance: ['a'] }] }, rules: [{ match: { task: 't1' }, do: { shell: gate } }] }, {}, { 'notes.txt': 'committed\n' });
    const home = scratchHome();
    const running = team(project, home, '2:executor', 'work while the user commits', '--agent', 'sim');
    // The user commits on their branch while t1's agent runs.
    const started = () => existsSync(join(project.dir, '.team', 'runs')) && (() => {
      try {
        return eventsOf(project.readRun().events, 'attempt_spawned').some((e) => e.task_id === 't1');
      } catch {
        return false;
      }
    })();
    for (let i = 0; i < 1200 && !started(); i += 1) await sleep(50);
    project.write('mine.txt', 'mine\n');
    project.git('add', 'mine.txt');
    project.git('commit', '-q', '-m', 'my own commit');
    writeFileSync(join(project.dir, '.team', 'release'), '');
    const result = await running;
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('needs attention: your checkout changed');
    const land = await team(project, home, 'land');
    expect(land.exitCode, land.stderr).toBe(0);
    expect(land.stderr).toMatch(/your own change during the run \(its workers were fenced out of your checkout; seen at the merge of t1\): HEAD moved from \w+ to \w+; branch main moved from/);
    expect(project.git('log', '--format=%s', '-n', '5')).toContain('my own commit');
    expect(readFileSync(join(project.dir, 'sim-output/t1.txt'), 'utf8')).toContain('task t1');
  });

  it('fences the verify gates the same way: they write their folder and a private TMPDIR, not the home', async () => {
    const gate = 'echo made > gate-made.txt; echo tmp > "$TMPDIR/t"; echo "alias ls=rm" >> "$HOME/.bashrc"; test -f gate-made.txt && test -f "$TMPDIR/t"';
    const project = makeGitProject({ plan: { count: 1 } }, { verify: { commands: [gate] } });
    const home = scratchHome();
    const result = await team(project, home, '2:executor', 'run the gates fenced', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('# the user\'s shell setup\n');
    const [gates] = eventsOf(project.readRun().events, 'gates_result');
    expect(gates!.gates[0]).toMatchObject({ exitCode: 0 });
    expect(gates!.gates[0]!.output).toContain(`${join(home, '.bashrc')}: Read-only file system`);
  });

  it('records the fence lost when a fenced run is resumed unfenced, so that a checkout change is no longer taken for the user\'s own', async () => {
    const held = `${CHECKOUT} && until [ -e "$top/.team/release" ]; do sleep 0.05; done`;
    const project = makeGitProject({ plan: { tasks: [{ id: 't1', acceptance: ['a'] }] }, rules: [{ match: { task: 't1' }, do: { shell: held } }] });
    const home = scratchHome();
    const env = { ...GIT_ENV, TEAM_SIM_LEDGER: project.ledgerFile, HOME: home };
    const first = execa(process.execPath, [CLI, '2:executor', 'resumed without the fence', '--agent', 'sim'], { cwd: project.dir, env, reject: false, stdin: 'ignore' });
    await waitFor('t1 spawned', () => hasSpawned(project, 't1'));
    first.kill('SIGKILL');
    await first;
    expect(eventsOf(project.readRun().events, 'run_started')[0]!.fence).toEqual({ on: true });
    const config = JSON.parse(readFileSync(join(project.dir, '.team/config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(project.dir, '.team/config.json'), JSON.stringify({ ...config, team: { fence: 'off' } }));
    writeFileSync(join(project.dir, '.team', 'release'), '');
    const resumed = await team(project, home, 'resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr.split('\n').filter((line) => line.includes('unfenced'))).toEqual(['⚠ this run\'s workers are unfenced from here: team.fence is "off"']);
    expect(eventsOf(project.readRun().events, 'fence_lost').map((e) => e.why)).toEqual(['team.fence is "off"']);
    expect(JSON.parse((await team(project, home, 'status', '--json')).stdout).branches.fence).toEqual({ on: false, why: 'team.fence is "off"' });
  });

  // A machine where bubblewrap cannot build a fence: `team` runs in a user namespace that allows no
  // nested one (bwrap --disable-userns), as uid 1000 (root in a namespace could still mount).
  async function unfenceable(project: GitProject, home: string, ...args: string[]) {
    const outer = ['--dev-bind', '/', '/', '--unshare-user', '--disable-userns', '--uid', '1000', '--gid', '1000', '--'];
    const result = await execa('bwrap', [...outer, process.execPath, CLI, ...args], { cwd: project.dir, env: { ...GIT_ENV, TEAM_SIM_LEDGER: project.ledgerFile, HOME: home }, reject: false, stdin: 'ignore' });
    return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
  }

  it('says once that a run\'s workers are unfenced where the fence cannot be built, and refuses to start with team.fence "required"', async () => {
    const home = scratchHome();
    const required = makeGitProject({ plan: { count: 1 } }, { team: { fence: 'required' } });
    const refused = await unfenceable(required, home, '2:executor', 'needs the fence', '--agent', 'sim');
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/team\.fence is "required", and bubblewrap cannot build a fence here \(bwrap: Creating new namespace failed.*\); user namespaces may be off in this container or kernel: the run is not started/);
    expect(existsSync(join(required.dir, '.team', 'runs'))).toBe(false);
    // team doctor says why, and fails the check the config requires.
    const doctor = await unfenceable(required, home, 'doctor');
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stdout).toMatch(/^FAIL {2}fence: bubblewrap cannot build a fence here \(bwrap: Creating new namespace failed.*; attempts run unfenced — fix: install bubblewrap/m);
    const auto = makeGitProject({ plan: { count: 1 } });
    const result = await unfenceable(auto, home, '2:executor', 'runs unfenced', '--agent', 'sim');
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = result.stderr.split('\n').filter((line) => line.includes('unfenced'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^⚠ this run's workers are unfenced: bubblewrap cannot build a fence here \(bwrap: Creating new namespace failed/);
    const started = eventsOf(auto.readRun().events, 'run_started')[0]!;
    expect(started.fence?.on).toBe(false);
    expect(started.fence?.why).toContain('bubblewrap cannot build a fence here');
  });
});

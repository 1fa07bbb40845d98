// `team watch` in a tmux pane of a private server, read with capture-pane while a run of a git
// project is held by a gate.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../../helpers/project.js';
import { makeGitProject, type GitProject } from '../../helpers/git-project.js';
import { allRoles } from '../../helpers/sim-project.js';
import { CLI, type TeamResult } from '../../helpers/team.js';
import { makeTmuxSandbox, type TmuxSandbox } from '../../helpers/tmux-sandbox.js';
import { makeGate } from './gate.js';

const gate = makeGate();
const SCENARIO = { name: 'watch', plan: { tasks: [{ id: 'alpha', title: 'A', acceptance: ['a'] }, { id: 'beta', title: 'B', acceptance: ['b'] }] } };
// How long the test polls the screen before giving up.
const POLL_LIMIT_MS = 40_000;

afterAll(async () => {
  await gate.remove();
  removeProjects();
});

describe('watch in tmux', () => {
  let sandbox: TmuxSandbox;
  let project: GitProject;
  let running: Promise<TeamResult>;
  const server = `watch-${randomBytes(4).toString('hex')}`;

  const screen = async (target: string, history = false) => (await sandbox.tmux(server, 'capture-pane', '-p', '-J', '-t', target, ...(history ? ['-S', '-'] : []))).stdout;
  const until = async (target: string, ok: (text: string) => boolean): Promise<string> => {
    const deadline = Date.now() + POLL_LIMIT_MS;
    let text = '';
    while (Date.now() < deadline) {
      text = await screen(target);
      if (ok(text)) return text;
      await sleep(100);
    }
    throw new Error(`the screen of ${target} never showed what was awaited:\n${text}`);
  };
  // A session of `columns` columns whose pane runs `team watch` in the project, left readable after it exits.
  const startWatch = async (session: string, columns: number) => {
    await sandbox.tmux(server, 'new-session', '-d', '-s', session, '-x', String(columns), '-y', '30', 'sleep 600');
    await sandbox.tmux(server, 'set-option', '-t', session, 'remain-on-exit', 'on');
    await sandbox.tmux(server, 'respawn-pane', '-k', '-t', session, `node ${CLI} watch --cwd ${project.dir} --interval 200; echo "watch exited with $?" > ${join(project.dir, `${session}.exit-code`)}`);
  };

  beforeAll(async () => {
    sandbox = makeTmuxSandbox();
    await sandbox.startUserSession();
    project = makeGitProject(SCENARIO, { agents: { gated: gate.executor('working on') }, roles: allRoles('sim', { executor: 'gated' }) });
    running = project.run('2:executor', 'watch me');
    const deadline = Date.now() + POLL_LIMIT_MS;
    while (Date.now() < deadline && !(await project.team('status', '--json')).stdout.includes('"worker-2"')) await sleep(200);
    await startWatch('wide', 120);
    await startWatch('narrow', 50);
  }, 90_000);

  afterAll(async () => {
    gate.open();
    await running;
    await sandbox?.cleanup();
  });

  it('shows the stage, the tasks done, one lane per worker with its task, title and last output line, redrawn in place', async () => {
    const first = await until('wide', (t) => /worker-2 +(alpha a1 +A|beta a1 +B) +running/.test(t) && t.includes('working on'));
    expect(first).toMatch(/^teamline \S+ · team · running · /m);
    expect(first).toMatch(/^stage team-exec · 0\/2 tasks done · fix loop 0 of 3 · \$0\.0000 · tokens 0 in \/ 0 out$/m);
    expect(first).toMatch(/^ {2}worker-1 +(alpha a1 +A|beta a1 +B) +running +\d+\.\ds +working on (alpha|beta)$/m);
    expect(first).toMatch(/^ {2}lead +plan a1 +completed/m);
    expect(first).toContain('needs attention: nothing');
    expect(first).toContain('q quits (the run goes on)');
    const elapsed = (t: string) => /^ {2}worker-1 +\S+ a1 +[AB] +running +(\d+\.\d)s/m.exec(t)?.[1];
    const later = await until('wide', (t) => elapsed(t) !== undefined && elapsed(t) !== elapsed(first));
    expect(later).toMatch(/^teamline /m);
    // In place: the whole history of the pane holds one frame, not one per redraw.
    const history = await screen('wide', true);
    expect(history.match(/^teamline /gm)).toHaveLength(1);
  });

  it('prints plain lines of what changed in a narrow terminal', async () => {
    const text = await until('narrow', (t) => /worker-2 (alpha|beta) a1 team-exec running/.test(t));
    expect(text).toMatch(/^stage team-exec · fix loop 0 of 3$/m);
    expect(text).toMatch(/^worker-1 (alpha a1 team-exec running · A|beta a1 team-exec running · B)$/m);
    expect(text).toMatch(/^0\/2 tasks done$/m);
    expect(text).not.toMatch(/^teamline /m);
  });

  it('quits on q and leaves the run running', async () => {
    await sandbox.tmux(server, 'send-keys', '-t', 'wide', 'q');
    // The exit code as the shell saw it: tmux 3.3a at times never reaps a pane's process that
    // exits (the pane is dead, its status never set), so #{pane_dead_status} cannot be relied on.
    const exitFile = join(project.dir, 'wide.exit-code');
    const deadline = Date.now() + POLL_LIMIT_MS;
    while (Date.now() < deadline && !existsSync(exitFile)) await sleep(100);
    expect(existsSync(exitFile) ? readFileSync(exitFile, 'utf8') : 'no exit code', await screen('wide')).toBe('watch exited with 0\n');
    expect(JSON.parse((await project.team('status', '--json')).stdout).status).toBe('running');
    gate.open();
    const result = await running;
    expect(result.exitCode, result.stderr).toBe(0);
  });

  it('ends by itself with the run, and a non-terminal gets plain lines', async () => {
    const text = await until('narrow', (t) => t.includes('run completed'));
    expect(text).toMatch(/^run completed: .* · \$0\.0000 · tokens 0 in \/ 0 out$/m);
    const piped = await project.team('watch');
    expect(piped.exitCode).toBe(0);
    expect(piped.stdout).toMatch(/^stage team-verify · fix loop 0 of 3\n/);
    expect(piped.stdout).not.toContain('\u001b[');
    expect(piped.stdout).toMatch(/^worker-[12] alpha a1 team-exec completed · A$/m);
    expect(piped.stdout).toMatch(/^worker-[12] beta a1 team-exec completed · B$/m);
    expect(piped.stdout).toMatch(/\n2\/2 tasks done\n/);
    expect(piped.stdout).toMatch(/\nrun completed: /);
    expect((await sandbox.tmux(sandbox.userServer, 'has-session', '-t', 'mine')).ok).toBe(true);
  });
});

// The foreground `team` run of a git project in a terminal (a tmux pane of a private server) shows
// the live view, then its summary.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGitProject, type GitProject } from '../../helpers/git-project.js';
import { removeProjects } from '../../helpers/project.js';
import { allRoles } from '../../helpers/sim-project.js';
import { CLI } from '../../helpers/team.js';
import { makeTmuxSandbox, type TmuxSandbox } from '../../helpers/tmux-sandbox.js';
import { makeGate } from './gate.js';

const gate = makeGate();
const SCENARIO = { name: 'tty', plan: { tasks: [{ id: 'alpha', title: 'First half', acceptance: ['a'] }, { id: 'beta', title: 'Second half', acceptance: ['b'] }] } };
const POLL_LIMIT_MS = 40_000;

afterAll(async () => {
  await gate.remove();
  removeProjects();
});

describe('run in a terminal', () => {
  let sandbox: TmuxSandbox;
  let project: GitProject;
  const server = `run-${randomBytes(4).toString('hex')}`;
  // Every screen the test read, from the run's first frame to its last.
  const seen: string[] = [];
  const screen = async () => {
    const text = (await sandbox.tmux(server, 'capture-pane', '-p', '-J', '-t', 'run')).stdout;
    seen.push(text);
    return text;
  };
  const until = async (ok: (text: string) => boolean): Promise<string> => {
    const deadline = Date.now() + POLL_LIMIT_MS;
    let text = '';
    while (Date.now() < deadline) {
      text = await screen();
      if (ok(text)) return text;
      await sleep(100);
    }
    throw new Error(`the pane never showed what was awaited:\n${text}`);
  };

  beforeAll(async () => {
    sandbox = makeTmuxSandbox();
    project = makeGitProject(SCENARIO, { agents: { gated: gate.executor('busy with') }, roles: allRoles('sim', { executor: 'gated' }) });
    await sandbox.tmux(server, 'new-session', '-d', '-s', 'run', '-x', '120', '-y', '40', 'sleep 600');
    await sandbox.tmux(server, 'set-option', '-t', 'run', 'remain-on-exit', 'on');
    await sandbox.tmux(server, 'respawn-pane', '-k', '-t', 'run', `cd ${project.dir} && node ${CLI} 2:executor "work in a terminal"; echo "team exited with $?" > exit-code`);
  });

  afterAll(async () => {
    gate.open();
    await sandbox?.cleanup();
  });

  it('draws the live view in place while the run works: the tasks done, a lane per worker with its task\'s title', async () => {
    const lane = (worker: string) => new RegExp(`^ {2}${worker} +(alpha a1 +First half|beta a1 +Second half) +running .* busy with (alpha|beta)$`, 'm');
    const text = await until((t) => lane('worker-1').test(t) && lane('worker-2').test(t));
    expect(text).toMatch(/^teamline \S+ · team · running · /m);
    expect(text).toMatch(/^stage team-exec · 0\/2 tasks done · fix loop 0 of 3 · /m);
    expect(text).toContain('Ctrl-C cancels the run');
    expect(text).not.toMatch(/^== team-exec/m);
  });

  it('ends with the run\'s summary lines and exit code', async () => {
    gate.open();
    const text = await until((t) => /^ {3}run folder: /m.test(t));
    expect(text).toMatch(/^stage team-verify · 2\/2 tasks done · /m);
    expect(text).toMatch(/^run completed/m);
    expect(text).toMatch(/^── run \S+: COMPLETED/m);
    // The exit code as the shell saw it: tmux 3.3a at times never reaps a pane's process that
    // exits (the pane is dead, its status never set), so #{pane_dead_status} cannot be relied on.
    const exitFile = join(project.dir, 'exit-code');
    const deadline = Date.now() + POLL_LIMIT_MS;
    while (Date.now() < deadline && !existsSync(exitFile)) await sleep(100);
    expect(existsSync(exitFile) ? readFileSync(exitFile, 'utf8') : 'no exit code', await screen()).toBe('team exited with 0\n');
  });

  it('never showed a lane named after a stage, in any frame read', () => {
    expect(seen.length).toBeGreaterThan(2);
    for (const text of seen) expect(text).not.toMatch(/^ {2}team-[a-z]+ /m);
  });
});

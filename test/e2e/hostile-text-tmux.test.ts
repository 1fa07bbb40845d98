// A hostile agent's text (task titles, summaries, defects, a file name) and a hostile task, full of
// escape sequences, run in a git project with 2 workers: in panes of a private tmux server the
// foreground run, `team status`, `team wait`, `team list` and `team watch` neither clear the screen,
// nor set the pane's title, nor write the clipboard, and show the text sanitized; --json stays exact.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIT_ENV, makeGitProject, type GitProject } from '../helpers/git-project.js';
import { removeProjects } from '../helpers/project.js';
import { allRoles } from '../helpers/sim-project.js';
import { CLI } from '../helpers/team.js';
import { makeTmuxSandbox, type TmuxSandbox } from '../helpers/tmux-sandbox.js';

// A clear screen, a cursor move home, a window title, an OSC 52 clipboard write ("hi"), a bidi
// override and a carriage return that would overwrite the line's start.
const HOSTILE = 'A\u001b[2J\u001b[Hb\u001b]2;pwned\u0007c\u001b]52;c;aGk=\u0007d\u202Eevil\rOVER';
// What a terminal shows of it.
const SHOWN = 'Abcd<U+202E>evil OVER';
const SCENARIO = {
  name: 'hostile',
  plan: { tasks: [{ id: 't1', title: `one ${HOSTILE}`, acceptance: ['a'] }, { id: 't2', title: `two ${HOSTILE}`, acceptance: ['b'] }] },
  verify: { failPasses: 1, defects: [{ id: 'd1', description: `defect ${HOSTILE}`, task: 't1' }] },
  rules: [{ match: { stage: 'team-exec', task: 't2', attempt: 1 }, do: { fail: `summary ${HOSTILE}` } }],
  stages: { 'team-exec': { sleepMs: 1500, files: [{ path: `out-\u001b]2;pwned\u0007.txt`, content: 'x' }] } },
};
const TASK = `fix the parser ${HOSTILE}`;
const TITLE = 'clean-title';
const POLL_LIMIT_MS = 60_000;

afterAll(removeProjects);

describe('hostile text in a terminal', () => {
  let sandbox: TmuxSandbox;
  let project: GitProject;
  const server = `hostile-${randomBytes(4).toString('hex')}`;
  const tmux = (...args: string[]) => sandbox.tmux(server, ...args);
  const screen = async (pane: string) => (await tmux('capture-pane', '-p', '-e', '-J', '-t', pane)).stdout;

  // A pane 200 columns wide and tall enough to hold everything, titled TITLE, running `script` after a marker line.
  const runInPane = async (pane: string, script: string): Promise<string> => {
    const file = join(sandbox.dir, `${pane}.sh`);
    const env = { ...GIT_ENV, TEAM_SIM_LEDGER: project.ledgerFile };
    const exports = Object.entries(env).map(([k, v]) => `export ${k}='${v}'`).join('\n');
    writeFileSync(file, `${exports}\ncd '${project.dir}'\nteam() { node '${CLI}' "$@"; }\necho MARKER-BEFORE\n${script}\necho SCRIPT-DONE\nexec sleep 600\n`);
    await tmux('new-session', '-d', '-s', pane, '-x', '200', '-y', '120', 'sleep 600');
    await tmux('select-pane', '-t', pane, '-T', TITLE);
    await tmux('respawn-pane', '-k', '-t', pane, `sh ${file}`);
    const deadline = Date.now() + POLL_LIMIT_MS;
    while (Date.now() < deadline) {
      const text = await screen(pane);
      if (text.includes('SCRIPT-DONE')) return text;
      await sleep(200);
    }
    throw new Error(`pane ${pane} never finished:\n${await screen(pane)}`);
  };
  const expectUntouched = async (pane: string, text: string) => {
    expect(text).toContain('MARKER-BEFORE');
    expect((await tmux('display-message', '-p', '-t', pane, '#{pane_title}')).stdout.trim()).toBe(TITLE);
    expect((await tmux('list-buffers')).stdout).toBe('');
    // capture-pane -e gives back colours (SGR) only: no other sequence reached the screen.
    expect(text.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  };

  beforeAll(async () => {
    sandbox = makeTmuxSandbox();
    project = makeGitProject(SCENARIO, { roles: allRoles('sim') }, { 'task.txt': TASK });
    await tmux('new-session', '-d', '-s', 'keep', 'sleep 600');
    // tmux takes an OSC 52 write into a paste buffer only when set-clipboard is on.
    await tmux('set-option', '-g', 'set-clipboard', 'on');
  }, 30_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it('the foreground run and its live view leave the screen, the title and the clipboard alone', async () => {
    const text = await runInPane('run', `team 2:executor "$(cat task.txt)"; echo "run exited $?"`);
    await expectUntouched('run', text);
    expect(text).toContain('run exited 0');
    expect(text).toContain(`t2 a1: the agent reported failure: summary ${SHOWN}`);
    // The live view's last frame: each worker's lane with its task's title.
    expect(text).toMatch(new RegExp(`worker-[12] +t[12] a[12] +(one|two) Abcd<U\\+202E>evil OVER +(completed|failed) `));
  }, 90_000);

  it('team status, team wait, team list and team watch in a pane show the text sanitized', async () => {
    const text = await runInPane('read', 'team status; team wait; team list; team watch; echo "read exited $?"');
    await expectUntouched('read', text);
    expect(text).toContain('read exited 0');
    expect(text).toContain(`t1                 completed one ${SHOWN}`);
    expect(text).toContain(`task   fix the parser ${SHOWN}`);
    expect(text).toMatch(/ completed +[\d-]+ [\d:]+ +\d+s +\$0\.0000 +- +fix the parser Abcd<U\+202E>evil OVER$/m);
  }, 90_000);

  it('prints no control character to a pipe, and --json keeps the exact text', async () => {
    for (const command of ['status', 'wait', 'list', 'watch']) {
      const result = await project.team(command);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
      expect(result.stdout).toContain(SHOWN);
    }
    const status = JSON.parse((await project.team('status', '--json')).stdout) as { tasks: Array<{ id: string; title: string }> };
    expect(status.tasks.find((t) => t.id === 't1')?.title).toBe(`one ${HOSTILE}`);
    const list = JSON.parse((await project.team('list', '--json')).stdout) as Array<{ task: string }>;
    expect(list[0]!.task).toBe(TASK);
  }, 60_000);
});

// The foreground `team` run in a terminal (a tmux pane of a private server) shows the live view, then its summary.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { allRoles, makeSimProject, shellAgent, type SimProject } from '../helpers/sim-project.js';
import { CLI } from '../helpers/team.js';
import { makeTmuxSandbox, type TmuxSandbox } from '../helpers/tmux-sandbox.js';

// An executor that prints a line, then works until the test creates `release` in the project.
const GATED_EXECUTOR = shellAgent(
  'echo "busy with $TEAM_TASK_ID"; i=0; while [ ! -e "$TEAM_PROJECT_DIR/release" ]; do i=$((i+1)); [ $i -gt 3000 ] && exit 9; sleep 0.05; done; ' +
    `printf '%s' '{"status":"completed","summary":"released","evidence":"released"}' > "$TEAM_RESULT_FILE"`,
);
const POLL_LIMIT_MS = 40_000;

afterAll(removeProjects);

describe('run in a terminal', () => {
  let sandbox: TmuxSandbox;
  let project: SimProject;
  const server = `run-${randomBytes(4).toString('hex')}`;
  const screen = async () => (await sandbox.tmux(server, 'capture-pane', '-p', '-J', '-t', 'run')).stdout;
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
    project = makeSimProject({ name: 'tty', plan: { tasks: [{ id: 'solo', title: 'S', acceptance: ['s'] }] } }, { agents: { gated: GATED_EXECUTOR }, roles: allRoles('sim', { executor: 'gated' }) });
    await sandbox.tmux(server, 'new-session', '-d', '-s', 'run', '-x', '120', '-y', '40', 'sleep 600');
    await sandbox.tmux(server, 'set-option', '-t', 'run', 'remain-on-exit', 'on');
    await sandbox.tmux(server, 'respawn-pane', '-k', '-t', 'run', `cd ${project.dir} && node ${CLI} 1:executor "work in a terminal"; echo "team exited with $?" > exit-code`);
  });

  afterAll(async () => {
    project?.write('release', 'go\n');
    await sandbox?.cleanup();
  });

  it('draws the live view in place while the run works', async () => {
    const text = await until((t) => /worker-1 +solo a1 +running .* busy with solo$/m.test(t));
    expect(text).toMatch(/^teamline \S+ · team · running · /m);
    expect(text).toContain('Ctrl-C cancels the run');
    expect(text).not.toMatch(/^== team-exec/m);
  });

  it('ends with the run\'s summary lines and exit code', async () => {
    project.write('release', 'go\n');
    const text = await until((t) => /^ {3}run folder: /m.test(t));
    expect(text).toMatch(/^run completed/m);
    expect(text).toMatch(/^── run \S+: COMPLETED/m);
    // The exit code as the shell saw it: tmux 3.3a at times never reaps a pane's process that
    // exits (the pane is dead, its status never set), so #{pane_dead_status} cannot be relied on.
    const exitFile = join(project.dir, 'exit-code');
    const deadline = Date.now() + POLL_LIMIT_MS;
    while (Date.now() < deadline && !existsSync(exitFile)) await sleep(100);
    expect(existsSync(exitFile) ? readFileSync(exitFile, 'utf8') : 'no exit code', await screen()).toBe('team exited with 0\n');
  });
});

// `team watch` of a detached run whose orchestrator was killed (kill -9): piped and in a terminal (a
// tmux pane of a private server), it says that nothing drives the run and how to continue it, and
// never that the run goes on.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, lockPid } from '../../helpers/detached.js';
import { makeGitProject, type GitProject } from '../../helpers/git-project.js';
import { removeProjects } from '../../helpers/project.js';
import { allRoles } from '../../helpers/sim-project.js';
import { CLI } from '../../helpers/team.js';
import { makeTmuxSandbox, type TmuxSandbox } from '../../helpers/tmux-sandbox.js';
import { makeGate } from './gate.js';
import { waitFor } from '../../helpers/wait-event.js';

const gate = makeGate();
const SCENARIO = { name: 'undriven', plan: { tasks: [{ id: 'alpha', title: 'First half', acceptance: ['a'] }, { id: 'beta', title: 'Second half', acceptance: ['b'] }] } };
const POLL_LIMIT_MS = 40_000;

afterAll(async () => {
  await gate.remove();
  removeProjects();
});

describe('watch of a run nothing drives', () => {
  let project: GitProject;
  let runId: string;
  let sandbox: TmuxSandbox;
  const server = `undriven-${randomBytes(4).toString('hex')}`;
  const screen = async () => (await sandbox.tmux(server, 'capture-pane', '-p', '-J', '-t', 'watch')).stdout;

  beforeAll(async () => {
    sandbox = makeTmuxSandbox();
    project = makeGitProject(SCENARIO, { agents: { held: gate.executor('holding') }, roles: allRoles('sim', { executor: 'held' }) });
    const started = await project.run('2:executor', 'two held halves', '--detach');
    expect(started.exitCode, started.stderr).toBe(0);
    runId = /teamline run (\S+) runs detached/.exec(started.stdout)![1]!;
    const spawned = (task: string) => project.listEvents(runId).some((name) => name.includes(`-attempt_spawned-${task}-a1-`));
    await waitFor('alpha and beta to be spawned', () => spawned('alpha') && spawned('beta'));
    const orchestrator = lockPid(project, runId)!;
    process.kill(orchestrator, 'SIGKILL');
    await waitFor('the orchestrator to end', () => !alive(orchestrator));
  }, 90_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it('says so in its plain lines, with the command that continues the run', async () => {
    const watch = execa('node', [CLI, 'watch', '--interval', '100'], { cwd: project.dir, reject: false, stdin: 'ignore' });
    let out = '';
    // A few redraws after the line is there; at most POLL_LIMIT_MS without it.
    let limit: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      limit = setTimeout(resolve, POLL_LIMIT_MS);
      watch.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('nothing drives')) setTimeout(resolve, 500);
      });
    });
    clearTimeout(limit);
    watch.kill('SIGTERM');
    await watch;
    expect(out).toContain(`\nnothing drives this run: \`team resume --run ${runId}\` continues it\n`);
    expect(out).toMatch(/^worker-[12] alpha a1 team-exec running · First half$/m);
    expect(out).toMatch(/^0\/2 tasks done$/m);
    expect(out).not.toContain('goes on');
  });

  it('says so in a terminal where the footer would say that q quits and the run goes on', async () => {
    await sandbox.tmux(server, 'new-session', '-d', '-s', 'watch', '-x', '120', '-y', '30', 'sleep 600');
    await sandbox.tmux(server, 'set-option', '-t', 'watch', 'remain-on-exit', 'on');
    const exitFile = join(project.dir, 'watch.exit-code');
    await sandbox.tmux(server, 'respawn-pane', '-k', '-t', 'watch', `node ${CLI} watch --cwd ${project.dir} --interval 200; echo "watch exited with $?" > ${exitFile}`);
    const deadline = Date.now() + POLL_LIMIT_MS;
    let text = '';
    while (Date.now() < deadline && !(text = await screen()).includes('nothing drives')) await sleep(100);
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    expect(lines.at(-1), text).toBe(`nothing drives this run: \`team resume --run ${runId}\` continues it`);
    expect(text).toMatch(/^ {2}worker-[12] +alpha a1 +First half +running /m);
    expect(text).not.toContain('q quits');
    // q still ends the view.
    await sandbox.tmux(server, 'send-keys', '-t', 'watch', 'q');
    while (Date.now() < deadline && !existsSync(exitFile)) await sleep(100);
    expect(existsSync(exitFile) ? readFileSync(exitFile, 'utf8') : 'no exit code').toBe('watch exited with 0\n');
  });
});

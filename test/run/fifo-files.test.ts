// A FIFO where teamline reads a file a person or an agent could have replaced (run.json, the lock,
// the wait mark, the config, the opchain checkpoint) never hangs a command: each is refused at once,
// named, or (the checkpoint) moved out of the way. Every command runs with a timeout: a hang fails.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpCancelProjects, makeCancelProject, type CancelProject } from '../helpers/cancel-run.js';
import { CLI } from '../helpers/team.js';

afterEach(cleanUpCancelProjects);

// `team <args>` in the project, ended after 20 s; a hang fails the test.
async function team(project: CancelProject, ...args: string[]) {
  const result = await execa(process.execPath, [CLI, ...args], { cwd: project.dir, env: project.env, reject: false, stdin: 'ignore', timeout: 20_000 });
  expect(result.timedOut, `team ${args.join(' ')} hung`).toBe(false);
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

// Puts a FIFO in place of `path` (relative to the project).
function fifoAt(project: CancelProject, path: string): string {
  const file = join(project.dir, path);
  rmSync(file, { force: true });
  execFileSync('mkfifo', [file]);
  return file;
}

// A run whose one worker hangs and whose orchestrator was killed (kill -9): nothing drives it.
async function makeUndrivenRun(): Promise<{ project: CancelProject; runId: string }> {
  const project = makeCancelProject({ scenario: 'cancel-one-hang.json', graceMs: 500 });
  const run = project.start('1:executor', 'a run whose orchestrator dies');
  const runId = await project.waitForWorkers(['t1']);
  process.kill(run.pid, 'SIGKILL');
  await run.exited;
  return { project, runId };
}

describe('files around the log (FIFOs)', () => {
  it('a FIFO at run.json: list names the run, the other commands refuse it at once', async () => {
    const { project, runId } = await makeUndrivenRun();
    const file = fifoAt(project, `.team/runs/${runId}/run.json`);
    const refusal = `${file} is unreadable or not valid JSON (not a regular file (a FIFO)); the run cannot be read`;
    const list = await team(project, 'list');
    expect(list.exitCode).toBe(0);
    expect(list.stderr).toBe(`team list: run ${runId} is not listed: ${refusal}`);
    for (const args of [['status'], ['report'], ['wait', '--timeout', '1'], ['cancel'], ['resume']]) {
      const result = await team(project, ...args);
      expect(result.stderr, args.join(' ')).toBe(`team: ${refusal}`);
      expect(result.exitCode, args.join(' ')).toBe(2);
    }
  }, 90_000);

  it('a FIFO at the lock of a run whose orchestrator died: wait and cancel answer at once', async () => {
    const { project, runId } = await makeUndrivenRun();
    const file = fifoAt(project, `.team/runs/${runId}/lock.json`);
    const wait = await team(project, 'wait', '--timeout', '1');
    expect(wait.exitCode, wait.stderr).toBe(6);
    const cancel = await team(project, 'cancel');
    expect(cancel.stderr).toBe(`team: the lock file ${file} cannot be read (not a regular file (a FIFO)); if no orchestrator drives run ${runId}, remove that file and try again`);
    expect(cancel.exitCode).toBe(2);
    rmSync(file);
    expect((await team(project, 'cancel')).exitCode).toBe(0);
  }, 90_000);

  it('a FIFO at the wait mark: team wait --timeout 1 prints its summary and exits 5', async () => {
    const project = makeCancelProject({ scenario: 'cancel-one-hang.json', graceMs: 500 });
    const run = project.start('1:executor', 'a run that waits');
    const runId = await project.waitForWorkers(['t1']);
    fifoAt(project, `.team/runs/${runId}/wait-mark.json`);
    const wait = await team(project, 'wait', '--timeout', '1');
    expect(wait.exitCode, wait.stderr).toBe(5);
    expect(statSync(join(project.runDir(runId), 'wait-mark.json')).isFile()).toBe(true);
    expect((await team(project, 'cancel')).exitCode).toBe(0);
    expect((await run.exited).exitCode).toBe(3);
  }, 90_000);

  it('a FIFO under an end record\'s name: cancel passes it by and cancels the run', async () => {
    const { project, runId } = await makeUndrivenRun();
    const fifo = fifoAt(project, `.team/runs/${runId}/events/20991231T000000000000Z-run_cancelled-run-a0-zzzzzz.json`);
    try {
      const cancel = await team(project, 'cancel');
      expect(cancel.exitCode, cancel.stderr).toBe(0);
      expect(project.listEvents(runId).filter((name) => name.includes('-run_cancelled-'))).toHaveLength(2);
    } finally {
      // The test's own helpers read every event file plainly.
      rmSync(fifo);
    }
  }, 90_000);

  it('a FIFO at the cancel request of a driven run: the orchestrator never waits on it, and a cancel still ends the run', async () => {
    const project = makeCancelProject({ scenario: 'cancel-one-hang.json', graceMs: 500 });
    const run = project.start('1:executor', 'a run with a FIFO for a request');
    const runId = await project.waitForWorkers(['t1']);
    fifoAt(project, `.team/runs/${runId}/cancel-request.json`);
    // The orchestrator looks for a request twice a second: it has looked at the FIFO by now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const cancel = await team(project, 'cancel');
    expect(cancel.exitCode, cancel.stderr).toBe(0);
    expect((await run.exited).exitCode).toBe(3);
  }, 90_000);

  it('a FIFO at the project config: status and cancel name it at once (status, which only reads, as a warning)', async () => {
    const { project } = await makeUndrivenRun();
    const file = fifoAt(project, '.team/config.json');
    const status = await team(project, 'status');
    expect(status.stderr).toContain(`team: warning: config ${file}: cannot be read: not a regular file (a FIFO)`);
    expect(status.exitCode).toBe(0);
    const cancel = await team(project, 'cancel');
    expect(cancel.stderr).toBe(`team: config ${file}: cannot be read: not a regular file (a FIFO)`);
    expect(cancel.exitCode).toBe(2);
  }, 90_000);

  it('a FIFO at the opchain checkpoint: validate refuses it at once, and a run moves it aside and writes its own', async () => {
    const project = makeCancelProject({ scenario: 'e2e-one-task.json', graceMs: 500 });
    project.write('.checkpoints/keep', '');
    const file = fifoAt(project, '.checkpoints/team.checkpoint.json');
    const validate = await team(project, 'checkpoint', 'validate');
    expect(validate.stderr).toBe(`team checkpoint validate: ${file} cannot be read: not a regular file (a FIFO)`);
    expect(validate.exitCode).toBe(2);
    const run = await team(project, '1:executor', 'a run beside a FIFO');
    expect(run.exitCode, run.stderr).toBe(0);
    const history = readdirSync(join(project.dir, '.checkpoints', 'history'));
    expect(history).toHaveLength(1);
    expect(statSync(join(project.dir, '.checkpoints', 'history', history[0]!)).isFIFO()).toBe(true);
    expect(run.stderr).toContain(`.checkpoints/team.checkpoint.json was not a checkpoint of skill team: moved as it was to .checkpoints/history/${history[0]}; teamline writes its own there\n`);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ skill: 'team', status: 'complete' });
    expect((await team(project, 'checkpoint', 'validate')).exitCode).toBe(0);
  }, 90_000);
});

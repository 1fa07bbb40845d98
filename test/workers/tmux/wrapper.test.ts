import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LaunchSpec } from '../../../workers/types.js';
import { readExitRecord, toShellCommand, wrapperArgv, wrapperEnv } from '../../../workers/wrapper.js';
import { toNodeCommand } from './tmux-test-run.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wrapper-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function makeSpec(command: LaunchSpec['command']): LaunchSpec {
  const env = { TEAM_RESULT_FILE: join(dir, 'result.json') };
  return { runId: 'r', taskId: 't', attempt: 1, worker: 'worker-1', attemptDir: dir, cwd: dir, command, env };
}

// Runs the wrapper the way a process backend would: no terminal, output captured by the caller.
async function runWrapper(spec: LaunchSpec, output: 'tee' | 'inherit') {
  const [file = '', ...args] = wrapperArgv(spec, { output, onExit: ['touch', join(dir, 'hook-ran')] });
  const subprocess = execa(file, args, { cwd: spec.cwd, env: wrapperEnv(spec), reject: false, all: true });
  return Object.assign(await subprocess, { wrapperPid: subprocess.pid });
}

describe('wrapper', () => {
  it('keeps the agent exit code through tee and copies its output to output.log', async () => {
    const result = await runWrapper(makeSpec(toNodeCommand('tmux-exit.js', ['3'])), 'tee');
    expect(result.exitCode).toBe(3);
    expect(result.all).toBe('exiting with 3');
    expect(await readFile(join(dir, 'output.log'), 'utf8')).toBe('exiting with 3\n');
    expect(await readExitRecord(dir)).toMatchObject({ exitCode: 3, signal: null });
  });

  it('takes an exit record being written (still empty) or torn as not there yet', async () => {
    await writeFile(join(dir, 'exit.json'), '');
    expect(await readExitRecord(dir)).toBeUndefined();
    await writeFile(join(dir, 'exit.json'), '{"exitCode":0,"sig');
    expect(await readExitRecord(dir)).toBeUndefined();
  });

  // An agent can put anything at the record's name: none of it is a record, and none blocks the read.
  it('takes a FIFO or a link at the exit record\'s name as no record, at once', async () => {
    await execa('mkfifo', [join(dir, 'exit.json')]);
    expect(await readExitRecord(dir)).toBeUndefined();
    await rm(join(dir, 'exit.json'));
    await writeFile(join(dir, 'elsewhere.json'), '{"exitCode":0,"signal":null}');
    await symlink(join(dir, 'elsewhere.json'), join(dir, 'exit.json'));
    expect(await readExitRecord(dir)).toBeUndefined();
  });

  it('records a death by signal as the signal with no exit code', async () => {
    await runWrapper(makeSpec(toNodeCommand('tmux-self-kill.js')), 'inherit');
    expect(await readExitRecord(dir)).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
  });

  it('writes pid.json and runs the completion hook after exit.json', async () => {
    const result = await runWrapper(makeSpec(toNodeCommand('tmux-result.js')), 'inherit');
    expect(result.all).toBe('hello from the agent');
    expect(JSON.parse(await readFile(join(dir, 'pid.json'), 'utf8'))).toEqual({ pid: result.wrapperPid });
    expect(await readExitRecord(dir)).toEqual({ exitCode: 0, signal: null });
    await expect(readFile(join(dir, 'hook-ran'), 'utf8')).resolves.toBe('');
  });

  it('feeds stdinFile to the agent and adds the command env on top of the spec env', async () => {
    await writeFile(join(dir, 'prompt.md'), 'the prompt');
    const command = toNodeCommand('tmux-digest.js', ['stdin'], {
      stdinFile: join(dir, 'prompt.md'),
      env: { DIGEST_FILE: join(dir, 'digest.json') },
    });
    await runWrapper(makeSpec(command), 'inherit');
    expect(JSON.parse(await readFile(join(dir, 'digest.json'), 'utf8'))).toMatchObject({ length: 10 });
  });

  it('records exit 127 when the agent program does not exist', async () => {
    const result = await runWrapper(makeSpec({ file: join(dir, 'no-such-agent'), args: [] }), 'tee');
    expect(result.exitCode).toBe(127);
    expect(await readExitRecord(dir)).toMatchObject({ exitCode: 127, signal: null });
  });

  it('does not start the agent when a stop was requested before it started', async () => {
    await writeFile(join(dir, 'shutdown'), 'now');
    const result = await runWrapper(makeSpec(toNodeCommand('tmux-result.js')), 'tee');
    expect(result.all).toBe('teamline: stop requested before the agent started');
    expect(await readExitRecord(dir)).toMatchObject({ exitCode: null, signal: 'SIGINT' });
  });

  it('quotes words so that sh gives them back unchanged', async () => {
    const words = ["it's", 'a "b" $c `d`', 'line\nbreak', ''];
    const echoed = await execa('sh', ['-c', `printf '%s|' ${toShellCommand(words)}`]);
    expect(echoed.stdout).toBe(`${words.join('|')}|`);
  });
});

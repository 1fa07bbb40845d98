import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTmuxBackend } from '../../../workers/tmux/backend.js';
import { toServerName } from '../../../workers/tmux/tmux-run.js';
import type { WorkerHandle } from '../../../workers/types.js';
import { isRunning, makeTestRun, toNodeCommand, type TestRun } from './tmux-test-run.js';

let run: TestRun;

beforeEach(async () => {
  run = await makeTestRun();
});

afterEach(async () => {
  expect(await run.cleanup()).toEqual({ socketLeft: false });
});

const readText = (path: string): Promise<string> => readFile(path, 'utf8');

describe('tmux backend', () => {
  it('records exit 0 and keeps the output of an agent that writes its result', async () => {
    const backend = createTmuxBackend(run.options);
    const spec = await run.makeSpec('t1', toNodeCommand('tmux-result.js'));
    const handle = await backend.launch(spec);
    expect(handle).toMatchObject({ backend: 'tmux', server: toServerName(run.runId), window: 'worker-1' });
    const exit = await backend.wait(handle, spec);
    expect(exit).toMatchObject({ exitCode: 0, signal: null, stopped: false });
    expect(exit.reason).toBeUndefined();
    expect(await readText(join(spec.attemptDir, 'output.log'))).toBe('hello from the agent\n');
    expect(JSON.parse(await readText(join(spec.attemptDir, 'result.json')))).toMatchObject({ status: 'completed' });
    expect(JSON.parse(await readText(join(spec.attemptDir, 'exit.json')))).toMatchObject({ exitCode: 0, signal: null });
    expect(await backend.isAlive(handle)).toBe(false);
  });

  it('runs an agent when no locale is set (no LANG, as in a bare agent shell), where tmux would turn the tabs of its answers into _', async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(LANG|LANGUAGE|LC_.*)$/.test(name)));
    const backend = createTmuxBackend({ ...run.options, env });
    const spec = await run.makeSpec('t1', toNodeCommand('tmux-result.js'));
    const exit = await backend.wait(await backend.launch(spec), spec);
    expect(exit).toMatchObject({ exitCode: 0, signal: null, stopped: false });
  });

  it('records exit code 3 of an agent that fails at once, with its stderr in output.log', async () => {
    const backend = createTmuxBackend(run.options);
    const spec = await run.makeSpec('t1', toNodeCommand('tmux-exit.js', ['3']));
    const exit = await backend.wait(await backend.launch(spec), spec);
    expect(exit).toMatchObject({ exitCode: 3, signal: null, stopped: false });
    expect(await readText(join(spec.attemptDir, 'output.log'))).toBe('exiting with 3\n');
  });

  it('records the signal of an agent that kills itself', async () => {
    const backend = createTmuxBackend(run.options);
    const spec = await run.makeSpec('t1', toNodeCommand('tmux-self-kill.js'));
    const exit = await backend.wait(await backend.launch(spec), spec);
    expect(exit).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
  });

  it('keeps all 100,000 lines of a loud agent in output.log', async () => {
    const backend = createTmuxBackend(run.options);
    const spec = await run.makeSpec('t1', toNodeCommand('tmux-lines.js', ['100000']));
    const exit = await backend.wait(await backend.launch(spec), spec);
    expect(exit.exitCode).toBe(0);
    const lines = (await readText(join(spec.attemptDir, 'output.log'))).split('\n');
    expect(lines.length).toBe(100_001);
    expect(lines[99_999]).toBe('line 100000');
  });

  it('ends the children an agent leaves behind once its pane command is over', async () => {
    const backend = createTmuxBackend(run.options);
    const spec = await run.makeSpec('t1', toNodeCommand('tmux-leave-child.js'));
    const pidsFile = join(spec.attemptDir, 'pids.json');
    const leaving = { ...spec, command: { ...spec.command, env: { PIDS_FILE: pidsFile } } };
    const handle = await backend.launch(leaving);
    expect(await backend.wait(handle, leaving)).toMatchObject({ exitCode: 0 });
    const { child } = JSON.parse(await readText(pidsFile)) as { child: number };
    expect(isRunning(child)).toBe(false);
  });

  it('resolves with no exit code and a reason when the pane is killed from outside', async () => {
    const backend = createTmuxBackend(run.options);
    const spec = await run.makeSpec('t1', { file: 'sleep', args: ['60'] });
    const handle = await backend.launch(spec);
    expect(await backend.isAlive(handle)).toBe(true);
    const waiting = backend.wait(handle, spec);
    await tmuxOf(run, ['kill-pane', '-t', paneOf(handle)]);
    expect(await waiting).toMatchObject({ exitCode: null, reason: 'pane killed from outside', stopped: false });
    expect(await backend.isAlive(handle)).toBe(false);
  });

  it('delivers a 50,000-character prompt intact by stdin, by file and as an argument', async () => {
    const backend = createTmuxBackend(run.options);
    const prompt = makePrompt(50_000);
    const expected = { sha256: sha256Of(prompt), length: 50_000 };
    for (const via of ['stdin', 'file', 'arg'] as const) {
      const spec = await run.makeSpec(`p-${via}`, toNodeCommand('tmux-digest.js'), 1, `worker-${via}`);
      const promptFile = join(spec.attemptDir, 'prompt.md');
      await writeFile(promptFile, prompt);
      const args = [...spec.command.args, via, via === 'arg' ? prompt : promptFile];
      const command = { ...spec.command, args, env: { DIGEST_FILE: join(spec.attemptDir, 'digest.json') } };
      const withPrompt = { ...spec, command: via === 'stdin' ? { ...command, stdinFile: promptFile } : command };
      const exit = await backend.wait(await backend.launch(withPrompt), withPrompt);
      expect(exit.exitCode, via).toBe(0);
      expect(JSON.parse(await readText(join(spec.attemptDir, 'digest.json'))), via).toEqual(expected);
    }
  });

  it('reuses the dead window of a worker for its next attempt', async () => {
    const backend = createTmuxBackend(run.options);
    const first = await run.makeSpec('t1', toNodeCommand('tmux-exit.js', ['1']), 1);
    const firstHandle = await backend.launch(first);
    await backend.wait(firstHandle, first);
    const second = await run.makeSpec('t1', { file: 'sleep', args: ['60'] }, 2);
    const secondHandle = await backend.launch(second);
    expect(paneOf(secondHandle)).toBe(paneOf(firstHandle));
    expect(await backend.isAlive(firstHandle)).toBe(false);
    expect(await backend.isAlive(secondHandle)).toBe(true);
    await backend.stop(firstHandle, { graceMs: 0 });
    expect(await backend.isAlive(secondHandle)).toBe(true);
    await backend.stop(secondHandle, { graceMs: 10_000 });
    expect(await backend.wait(secondHandle, second)).toMatchObject({ signal: 'SIGINT', stopped: true });
  });

  it('reports status 126 with a reason when the working folder is missing', async () => {
    const backend = createTmuxBackend(run.options);
    const spec = await run.makeSpec('t1', toNodeCommand('tmux-exit.js', ['0']));
    const missing = { ...spec, cwd: join(run.root, 'no-such-folder') };
    const exit = await backend.wait(await backend.launch(missing), missing);
    expect(exit).toMatchObject({ exitCode: 126, signal: null, reason: `the working folder ${join(run.root, 'no-such-folder')} does not exist` });
  });

  it('lets a second backend instance wait on a handle launched by the first', async () => {
    const spec = await run.makeSpec('t1', toNodeCommand('tmux-exit.js', ['5']));
    const recorded = JSON.stringify(await createTmuxBackend(run.options).launch(spec));
    const adopted = JSON.parse(recorded) as WorkerHandle;
    const exit = await createTmuxBackend({ env: process.env }).wait(adopted, spec);
    expect(exit).toMatchObject({ exitCode: 5, signal: null });
  });
});

function paneOf(handle: WorkerHandle): string {
  if (handle.backend !== 'tmux') throw new Error('not a tmux handle');
  return handle.paneId;
}

async function tmuxOf(testRun: TestRun, args: string[]): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, TMUX_TMPDIR: testRun.options.socketDir };
  delete env.TMUX;
  await execa('tmux', ['-L', toServerName(testRun.runId), ...args], { env, extendEnv: false });
}

function makePrompt(length: number): string {
  const line = "Add input validation to the API; keep 'quotes', \"double\", $VARS, `ticks` and ünïcødé.\n";
  return line.repeat(Math.ceil(length / line.length)).slice(0, length);
}

function sha256Of(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

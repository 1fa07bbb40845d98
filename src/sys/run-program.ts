// A short program run to its end with its whole output: git and tmux, which a run calls hundreds of
// times (a demo run: 325 git calls). Through node's own spawn: execa cost the calling process 5 ms of
// CPU per call against node's 2 (its options' normalisation and stream set-up), which made a third
// of a demo run's CPU time.
import { spawn } from 'node:child_process';

export interface ProgramResult {
  /** The exit code; -1 when the program did not start or a signal ended it. */
  code: number;
  stdout: string;
  stderr: string;
}

// Runs `file args` in `cwd` (else this process's) with exactly `env`, `input` on its stdin (else
// none); never throws: a program that cannot start says so on stderr, with code -1.
export function runProgram(file: string, args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv; input?: string }): Promise<ProgramResult> {
  const { cwd, env, input } = options;
  return new Promise((resolve) => {
    const child = spawn(file, args, { ...(cwd !== undefined && { cwd }), env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', (error) => resolve({ code: -1, stdout: '', stderr: `${file} could not start${cwd === undefined ? '' : ` in ${cwd}`}: ${error.message}` }));
    child.once('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    if (input !== undefined) {
      // The program may end without reading all of it (a refusal): that is its answer, not an error.
      child.stdin!.once('error', () => undefined);
      child.stdin!.end(input);
    }
  });
}

// Output without its final newline, as a shell's $(…) gives it.
export function withoutFinalNewline(text: string): string {
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

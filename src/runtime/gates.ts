// Runs the verify gate commands in the project, each with a timeout, keeping their output in the run folder.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { GateResult } from '../../machines/events.js';
import type { RunSession } from './session.js';

// The tail of a gate's output kept in the log; the whole output stays in gates/.
const OUTPUT_TAIL = 2_000;

// Runs every gate (all of them, so the defects list is complete) and records the results.
export async function runGates(session: RunSession, commands: string[], iteration: number, pass: number, signal: AbortSignal): Promise<void> {
  const dir = join(session.paths.runDir, 'gates');
  mkdirSync(dir, { recursive: true });
  const gates: GateResult[] = [];
  const cwd = await session.isolation.verifyDir(session);
  for (const [index, command] of commands.entries()) {
    const started = Date.now();
    const result = await execa('sh', ['-c', command], {
      cwd,
      all: true,
      reject: false,
      timeout: session.config.verify.timeoutMs,
      cancelSignal: signal,
      forceKillAfterDelay: 2_000,
      stdin: 'ignore',
    });
    if (signal.aborted) return;
    const output = String(result.all ?? '');
    writeFileSync(join(dir, `i${iteration}-p${pass}-${index + 1}.log`), output);
    const gate = { command, exitCode: result.timedOut ? null : (result.exitCode ?? null), timedOut: result.timedOut, durationMs: Date.now() - started, output: output.slice(-OUTPUT_TAIL) };
    gates.push(gate);
    session.progress.emit({ type: 'gate', command, exitCode: gate.exitCode, timedOut: gate.timedOut }, `  gate \`${command}\` ${gate.timedOut ? 'timed out' : `exited ${gate.exitCode}`} (${(gate.durationMs / 1000).toFixed(1)}s)`);
  }
  session.events.commit({ event: 'gates_result', iteration, pass, gates });
}

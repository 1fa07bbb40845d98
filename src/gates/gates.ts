// Runs the verify gate commands in the project, each with a timeout, keeping their output in the run folder.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GateResult } from '../log/schema.js';
import type { AgentCommand, WorkerHandle } from '../../workers/types.js';
import { fenceGate } from '../isolation/fence.js';
import { redactSecrets } from '../log/guards.js';
import { runGate } from './run.js';
import { verifyDir } from '../isolation/integration.js';
import type { IsolationParts } from '../session/isolation.js';
import type { RunPaths } from '../log/write.js';
import type { TeamConfig } from '../../config/schema.js';

// The tail of a gate's output kept in the log; the whole output stays in gates/.
const OUTPUT_TAIL = 2_000;

// What the gates use of a run: its isolation (where they run), its folder, its config.
export type GateParts = IsolationParts & { readonly paths: RunPaths; readonly config: TeamConfig };

// Runs every gate (all of them, so the defects list is complete) and records the results.
export async function runGates(parts: GateParts, commands: string[], iteration: number, pass: number, signal: AbortSignal): Promise<void> {
  const dir = join(parts.paths.runDir, 'gates');
  mkdirSync(dir, { recursive: true });
  const gates: GateResult[] = [];
  const cwd = await verifyDir(parts);
  for (const [index, command] of commands.entries()) {
    const outputFile = join(dir, `i${iteration}-p${pass}-${index + 1}.log`);
    // The gate's group is durable in the log before the gate runs: a cancel after a crash stops it.
    const record = (handle: WorkerHandle) => {
      parts.events.append({ event: 'gate_spawned', iteration, pass, gate: index + 1, command, handle });
      return parts.events.flush();
    };
    // Fenced as the attempts are: the gate writes its folder, a private temporary folder (removed after it) and team.fenceWritable.
    const own = mkdtempSync(join(tmpdir(), 'teamline-gate-'));
    const wrap = (plain: AgentCommand) => fenceGate(parts.config.team.fence, plain, cwd, own, parts.config.team.fenceWritable);
    const run = await runGate(command, { cwd, outputFile, timeoutMs: parts.config.verify.timeoutMs, signal, tailChars: OUTPUT_TAIL, record, wrap }).finally(() => rmSync(own, { recursive: true, force: true }));
    if (signal.aborted) return;
    // The project's own output can print a secret too: the log gets the tail redacted.
    const gate = { command, exitCode: run.exitCode, timedOut: run.timedOut, durationMs: run.durationMs, output: redactSecrets(run.tail).text };
    gates.push(gate);
    parts.progress.emit({ type: 'gate', command, exitCode: gate.exitCode, timedOut: gate.timedOut }, `  gate \`${command}\` ${gate.timedOut ? 'timed out' : `exited ${gate.exitCode}`} (${(gate.durationMs / 1000).toFixed(1)}s)`);
  }
  parts.events.commit({ event: 'gates_result', iteration, pass, gates });
}

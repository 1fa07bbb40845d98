// Runs the verify gate commands in the project, each with a timeout, keeping their output in the run folder.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { GateResult } from '../log/schema.js';
import type { AgentCommand, WorkerHandle } from '../../workers/types.js';
import { fenceGate } from '../isolation/fence.js';
import { gateTmpPrefix } from './groups.js';
import { redactSecrets } from '../log/guards.js';
import { runGate } from './run.js';
import { verifyDir } from '../isolation/integration.js';
import type { IsolationParts } from '../session/isolation.js';
import type { RunPaths } from '../log/write.js';
import type { TeamConfig } from '../../config/schema.js';

// The tail of a gate's output kept in the log; the whole output stays in gates/.
const OUTPUT_TAIL = 2_000;

// What the gates use of a run: its isolation (where they run), its folder, its config.
export type GateParts = IsolationParts & { readonly runId: string; readonly paths: RunPaths; readonly config: TeamConfig };

// Runs every gate (all of them, so the defects list is complete) and records the results.
export async function runGates(parts: GateParts, commands: string[], iteration: number, pass: number, signal: AbortSignal): Promise<void> {
  const gates = await runEach(parts, commands, await verifyDir(parts), signal, (index) => ({ file: `i${iteration}-p${pass}-${index}.log`, spawned: { iteration, pass, gate: index } }));
  if (gates) parts.events.commit({ event: 'gates_result', iteration, pass, gates });
}

// The best of N (issue 38): a completed candidate's gates, run in its own worktree (`cwd`) before
// its end is recorded, so that the selector weighs what each candidate's work does to them.
export async function runCandidateGates(parts: GateParts, commands: string[], input: { taskId: string; attempt: number; iteration: number; candidateOf: string }, cwd: string, signal: AbortSignal): Promise<void> {
  const { taskId, attempt, iteration } = input;
  const gates = await runEach(parts, commands, cwd, signal, (index) => ({ file: `${taskId}-a${attempt}-${index}.log`, spawned: { iteration, pass: 0, gate: index, task_id: taskId } }));
  if (gates) parts.events.commit({ event: 'candidate_gated', task_id: taskId, attempt, candidate_of: input.candidateOf, gates });
}

// Each command in turn in `cwd`, its output to gates/<file>; undefined when the signal stopped them.
async function runEach(parts: GateParts, commands: string[], cwd: string, signal: AbortSignal, name: (index: number) => { file: string; spawned: { iteration: number; pass: number; gate: number; task_id?: string } }): Promise<GateResult[] | undefined> {
  const dir = join(parts.paths.runDir, 'gates');
  mkdirSync(dir, { recursive: true });
  const gates: GateResult[] = [];
  for (const [index, command] of commands.entries()) {
    const { file, spawned } = name(index + 1);
    const outputFile = join(dir, file);
    // The gate's group is durable in the log before the gate runs: a cancel after a crash stops it.
    const record = (handle: WorkerHandle) => {
      parts.events.append({ event: 'gate_spawned', ...spawned, command, handle });
      return parts.events.flush();
    };
    // Fenced as the attempts are: the gate writes its folder, a private temporary folder (removed after it) and team.fenceWritable.
    const own = mkdtempSync(gateTmpPrefix(parts.runId));
    const wrap = (plain: AgentCommand) => fenceGate(parts.config.team.fence, plain, cwd, own, parts.config.team.fenceWritable);
    const run = await runGate(command, { cwd, outputFile, timeoutMs: parts.config.verify.timeoutMs, signal, tailChars: OUTPUT_TAIL, record, wrap }).finally(() => rmSync(own, { recursive: true, force: true }));
    if (signal.aborted) return undefined;
    // The project's own output can print a secret too: the log gets the tail redacted.
    const gate = { command, exitCode: run.exitCode, timedOut: run.timedOut, durationMs: run.durationMs, output: redactSecrets(run.tail).text };
    gates.push(gate);
    const who = spawned.task_id === undefined ? '' : ` of ${spawned.task_id}`;
    parts.progress.emit({ type: 'gate', command, exitCode: gate.exitCode, timedOut: gate.timedOut, ...(spawned.task_id !== undefined && { task: spawned.task_id }) }, `  gate \`${command}\`${who} ${gate.timedOut ? 'timed out' : `exited ${gate.exitCode}`} (${(gate.durationMs / 1000).toFixed(1)}s)`);
  }
  return gates;
}

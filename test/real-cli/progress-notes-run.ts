// A whole run of the real CLI whose noted exec task (model-server/progress-notes.ts) works for
// about three status checks (watchdog.statusCheckMs) only by calling team_progress now and then,
// its model thinking between the notes (the server holds each answer), while the other exec task's
// model stays silent. It runs for the CLIs that print nothing while they work — gemini
// (--output-format json) — whose attempt stays alive on its notes alone: its output does not grow
// from the first note to the last, over two status checks. claude, codex and opencode print each
// tool call as they make it, so their output alone keeps them alive; that their notes reach the
// log once each the team tools run proves (team-tools-run.ts), and that notes alone keep a quiet
// attempt alive the sim agent proves (test/mcp/team-tools-life.test.ts): this run, the longest of
// their suites, would prove nothing more of them.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { eventsOf } from '../helpers/agent-project.js';
import { waitForEvent } from '../helpers/wait-event.js';
import type { RealCli } from './clis.js';
import type { RealCliContext } from './suite.js';
import { OK_KEY } from './model-server/server.js';
import type { ModelCall } from './model-server/turn.js';
import { NOTE_COUNT, NOTED_TASK, NOTES_MARK, progressNote } from './model-server/progress-notes.js';
import { execCall } from './team-tools-run.js';
import { expectNoProcessLeft } from './leftovers.js';

// watchdog.statusCheckMs of each CLI quiet while it works (the others are not run: see the top of
// the file): beyond its start-up, which is silent too. gemini's spawn to first note, measured with
// the two exec attempts starting at once on a 2-core machine: 1.7 s idle, 5.9 s under a load average
// of 9. A longer start-up may mark the noted attempt stalled before its first note: a silence its log
// shows, which the test accepts. The run lasts about 2.5 of these beyond the CLI's start-up.
const STATUS_CHECK_MS: Partial<Record<RealCli, number>> = { gemini: 8_000 };
// How long the model thinks after each note, as a share of statusCheckMs: the rest is for the CLI
// and `team mcp` to carry the next note on a busy machine; five of them span two status checks.
const THINK_SHARE = 0.4;
// The task whose model stays silent.
const SILENT_TASK = 't2';
// A run of plan, two exec tasks and verify, on a slow-starting CLI on a busy machine.
const RUN_TIMEOUT_MS = 180_000;

// Registers the progress notes run of `ctx.cli` (inside its describe), for a CLI quiet while it works.
export function itKeepsNotedAttemptsAlive(ctx: RealCliContext): void {
  it.runIf(STATUS_CHECK_MS[ctx.cli] !== undefined)('progress notes keep a long attempt alive past the silence limit while a silent one is marked stalled', async () => {
    const { cli, server } = ctx;
    const statusCheckMs = STATUS_CHECK_MS[cli]!;
    const run = ctx.project(OK_KEY, { team: { fsync: false }, watchdog: { statusCheckMs, reassignMs: RUN_TIMEOUT_MS } });
    const dir = run.project.dir;
    // The model thinks after each note; the output is measured as it starts to.
    const thinking = Array.from({ length: NOTE_COUNT }, (_, i) => server.hold(turnOf(dir, NOTED_TASK, i + 1)));
    for (const hold of thinking) void hold.reached.then(() => setTimeout(hold.release, statusCheckMs * THINK_SHARE));
    const printed = thinking.map((hold) => hold.reached.then(() => outputSize(run.project.dir, run.project.runId())));
    const silent = server.hold(turnOf(dir, SILENT_TASK, 0));
    const started = run.start(['2:executor', `write two files ${NOTES_MARK}`, '--agent', cli]);
    try {
      await silent.reached;
      await waitForEvent(run.project, 'attempt_stalled', (e) => e.task_id === SILENT_TASK, { timeoutMs: RUN_TIMEOUT_MS });
    } finally {
      silent.release();
    }
    const result = await started.result;
    expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
    const files = run.project.readRun();
    expect(eventsOf(files, 'run_completed')).toHaveLength(1);
    expect(eventsOf(files, 'task_finished').filter((e) => e.task_id === NOTED_TASK || e.task_id === SILENT_TASK).map((e) => [e.task_id, e.status]).sort()).toEqual([
      [NOTED_TASK, 'completed'],
      [SILENT_TASK, 'completed'],
    ]);
    // Every note in the log once, in order, spanning two status checks.
    const notes = eventsOf(files, 'team_progress');
    expect(notes.map((e) => [e.task_id, e.text])).toEqual(Array.from({ length: NOTE_COUNT }, (_, i) => [NOTED_TASK, progressNote(i + 1)]));
    expect(at(notes.at(-1)!) - at(notes[0]!)).toBeGreaterThanOrEqual(2 * statusCheckMs);
    // The silent one was marked stalled, after a silence of a status check at least.
    const stalled = eventsOf(files, 'attempt_stalled');
    const silentStall = stalled.filter((e) => e.task_id === SILENT_TASK);
    expect(silentStall).toHaveLength(1);
    expect(silentStall[0]!.silent_ms).toBeGreaterThanOrEqual(statusCheckMs);
    // The noted one was never taken for stalled while its notes came: judged by the log's gaps, not
    // by a margin. A stall of it (the watchdog notes one per attempt) is right only after a silence
    // its log shows: a status check since its spawn or its last note — a start-up that a loaded
    // machine makes longer than a status check is such a silence, and the notes then go on unharmed.
    const spawned = eventsOf(files, 'attempt_spawned').find((e) => e.task_id === NOTED_TASK && e.attempt === 1)!;
    for (const stall of stalled.filter((e) => e.task_id === NOTED_TASK)) {
      const lastSign = [spawned, ...notes].map(at).filter((t) => t <= at(stall)).at(-1)!;
      const why = `${NOTED_TASK} stalled +${at(stall) - at(spawned)} ms after its spawn, ${at(stall) - lastSign} ms after its last sign in the log (notes at ${notes.map((e) => `+${at(e) - at(spawned)}`).join(', ')} ms)`;
      expect(at(stall) - lastSign, why).toBeGreaterThanOrEqual(statusCheckMs);
    }
    // The CLI printed nothing from one note to the next: the notes alone kept it alive.
    const sizes = await Promise.all(printed);
    expect(sizes.slice(1).map((size, i) => size > sizes[i]!), `output sizes ${sizes.join(', ')}`).toEqual(sizes.slice(1).map(() => false));
    await expectNoProcessLeft(run.marker);
  }, RUN_TIMEOUT_MS);
}

// A turn of an exec task's model after `outputs` tool answers: not a title or routing call, which
// some CLIs make beside their turns (opencode names its session as its first turn starts).
function turnOf(projectDir: string, taskId: string, outputs: number): (call: ModelCall) => boolean {
  const exec = execCall(projectDir, taskId, outputs);
  return (call) => exec(call) && call.step?.kind !== 'final';
}

// The size of the noted attempt's output so far.
function outputSize(projectDir: string, runId: string): number {
  return statSync(join(projectDir, '.team/runs', runId, 'attempts', NOTED_TASK, 'a1', 'output.log')).size;
}

function at(event: { at: string }): number {
  return Date.parse(event.at);
}

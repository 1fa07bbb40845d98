// Writes a realistic run log for the resume benchmark: every record is the pure pipeline machine's
// own (so that replay accepts it), between the inputs that drove it and the runtime's facts.
import { mkdirSync } from 'node:fs';
import { initialTransition, transition } from 'xstate';
import { pipelineMachine } from '../../machines/pipeline.js';
import type { PipelineInput, TaskDef } from '../../machines/types.js';
import type { NewEvent, TeamEvent } from '../../src/log/schema.js';
import { appendEvent, createRun, runPaths, type RunPaths } from '../../src/log/write.js';
import { LogDigest } from '../../src/log/digest.js';
import { snapshotDue, writeMachineSnapshot } from '../../src/session/machine-snapshot.js';
import { recordsOf } from '../../src/session/replay.js';
import { toMachineEvent } from '../../machines/inputs.js';
import type { WorkerHandle } from '../../workers/types.js';

// A run's log as a live run writes it: the pure machine's records, the inputs that drove it, the
// runtime's facts (spawns, usage) and the periodic machine snapshots, stopped mid-exec after about `events` events with `workers` attempts running.
export function writeRun(dir: string, events: number, workers: number): { paths: RunPaths; runId: string; events: number } {
  mkdirSync(dir, { recursive: true });
  // About four events per exec task (started, spawned, usage, finished; the plan's tasks are
  // assigned in one record): more tasks than fit.
  const planned = Math.ceil(events / 4) + workers;
  const limits = { maxTasks: planned, maxFixLoops: 3, maxTaskAttempts: 2, maxIterations: 10, statusCheckMs: 300_000, reassignMs: 600_000, shutdownTimeoutMs: 15_000 };
  const input: PipelineInput = { mode: 'team', task: 'bench: a long run', workers, agentType: 'executor', limits, gates: [], agents: {}, defaultAgent: 'claude', session: 's1', parent_session: '' };
  const run = createRun(dir, { profile: 'bench', stage: 'team-plan', status: 'running', session: 's1', parent_session: '', task: input.task, workers, agentType: 'executor', mode: 'team' }, { fsync: false });
  const paths = runPaths(dir, run.run_id);
  let count = 0;
  const digest = new LogDigest();
  let pid = 40_000;
  const write = (event: NewEvent): TeamEvent => {
    count++;
    return appendEvent(paths, run.run_id, event, { fsync: false, digest }) as TeamEvent;
  };
  write({ event: 'run_started', ...input, workerMode: 'headless', keepPanes: false });
  // Only the latest snapshot is kept: the steps may change the task map in place, as in a live run.
  let [snapshot, actions] = initialTransition(pipelineMachine, { ...input, inPlace: true });
  // Each transition's records, then a spawn record for every attempt it started.
  const writeRecords = () => {
    for (const record of recordsOf(actions)) {
      write(record);
      if (record.event !== 'task_started') continue;
      const worker = snapshot.context.tasks[record.task_id]?.worker ?? 'lead';
      const handle: WorkerHandle = { backend: 'process', pid: ++pid, pidStart: 9_000_000 + pid, pgid: pid };
      write({ event: 'attempt_spawned', task_id: record.task_id, attempt: record.attempt, worker, handle });
    }
  };
  // An input: logged first, then handed to the machine. Like a live run, the machine's state is
  // saved whenever one is due (snapshotDue, as drive.ts does).
  let saved = 0;
  const commit = (event: NewEvent) => {
    const machineEvent = toMachineEvent(write(event));
    if (!machineEvent) throw new Error(`${event.event} is not an input of the machine`);
    [snapshot, actions] = transition(pipelineMachine, snapshot, machineEvent);
    writeRecords();
    if (!snapshotDue(count, saved)) return;
    saved = count;
    writeMachineSnapshot(paths, { value: snapshot.value, context: snapshot.context }, digest.position());
  };
  const finish = (taskId: string, attempt: number, stage: string, artifacts: string[], payload?: NewEvent) => {
    write({ event: 'attempt_usage', task_id: taskId, attempt, stage, agent: 'claude', session_id: `sess-${taskId}`, cost_usd: 0.02, tokens: { input: 1500, output: 400 } });
    if (payload) commit(payload);
    const inputs = snapshot.context.handoffs.map((h) => h.path);
    commit({ event: 'task_finished', task_id: taskId, stage, agent: 'claude', attempt, status: 'completed', session: 's1', parent_session: '', inputs, artifacts, evidence: 'npm test: 42 passed, 0 failed; lint clean', next: 'none' });
  };
  writeRecords();
  finish('plan', 1, 'team-plan', ['docs/plan.md'], { event: 'plan_accepted', task_id: 'plan', attempt: 1, tasks: makePlan(planned), needsPrd: false });
  commit({ event: 'handoff_written', stage: 'team-plan', path: `.team/runs/${run.run_id}/handoffs/01-team-plan.md`, sha256: 'ab'.repeat(32) });
  for (;;) {
    // The attempt that started first (the index keeps running ids in the order they started).
    const first = snapshot.context.taskIndex.running[0];
    const running = first === undefined ? undefined : snapshot.context.tasks[first];
    if (!running) throw new Error('the generated run ran out of tasks before its events');
    if (count + 4 > events) break;
    finish(running.id, running.attempt, 'team-exec', [`src/${running.id}.ts`, `test/${running.id}.test.ts`]);
  }
  return { paths, runId: run.run_id, events: count };
}

// Independent tasks, each with acceptance criteria (no PRD stage).
function makePlan(count: number): TaskDef[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `t${i + 1}`,
    title: `Task ${i + 1}`,
    description: `Change module ${i + 1} and its tests`,
    acceptance: [`module ${i + 1} passes its tests`],
  }));
}

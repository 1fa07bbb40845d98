// A team tool call's round trip on the file store — `team mcp`'s call file, the orchestrator's desk
// recording it (one event commit, fsync on) and its answer file read back — against one event
// commit of the same log. Both on the real log path (EventLog over EventGroup), in one process.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventGroup } from '../src/log/event-group.js';
import { LogDigest } from '../src/log/digest.js';
import { createRun, runPaths } from '../src/log/write.js';
import { EventLog } from '../src/session/event-log.js';
import { LogFold } from '../src/session/log-fold.js';
import type { RunSession } from '../src/session/session.js';
import type { Logger } from '../src/sys/logger.js';
import { openDesk } from '../src/team-tools/desk.js';
import { callTool } from '../src/team-tools/server.js';
import type { Comparison } from './parts/compare.js';
import { makeScratchDir } from './parts/scratch.js';

const CALLS = 200;
// The call's two files and the answer's wake-up cost some commits' time; more would be a slow path.
const TARGET = 3;

// The round trips, interleaved in chunks with the plain commits.
export async function benchToolCall(): Promise<Comparison[]> {
  const project = makeScratchDir('teamline-bench-tools-');
  const run = createRun(project, { profile: 'bench', stage: 'team-exec', status: 'running', session: '', parent_session: '', task: 'bench', workers: 1, agentType: 'executor', mode: 'team' }, { fsync: true });
  const paths = runPaths(project, run.run_id);
  const digest = new LogDigest();
  const quiet = { warn: () => undefined, error: () => undefined, info: () => undefined } as unknown as Logger;
  const events = new EventLog(run.run_id, quiet, { fsync: true }, () => undefined, new LogFold(run), new EventGroup(paths, run.run_id, { fsync: true, digest }), digest);
  const session = { runId: run.run_id, events, log: quiet } as unknown as RunSession;
  const attemptDir = join(paths.attemptsDir, 't1', 'a1');
  mkdirSync(join(attemptDir, 'calls'), { recursive: true });
  const desk = openDesk(session, { task: 't1', attempt: 1, worker: 'worker-1', stage: 'team-exec', workDir: project, attemptDir, resultFile: join(attemptDir, 'result.json') });
  let callMs = 0;
  let commitMs = 0;
  try {
    for (let i = 0; i < CALLS; i++) {
      let t = performance.now();
      const answer = await callTool(attemptDir, { answer_ms: 10_000 }, 'team_progress', { text: `step ${i}` });
      callMs += performance.now() - t;
      if (!answer.ok) throw new Error(`the call was not answered: ${JSON.stringify(answer.answer)}`);
      t = performance.now();
      events.append({ event: 'team_progress', key: `plain-${i}`, task_id: 't1', attempt: 1, worker: 'worker-1', text: `plain ${i}` });
      await events.flush();
      commitMs += performance.now() - t;
    }
  } finally {
    await desk.close();
  }
  return [{ name: 'tool call', detail: `${CALLS} calls, fsync, file store`, ms: callMs / CALLS, baselineMs: commitMs / CALLS, target: TARGET, unit: 'ms/call' }];
}

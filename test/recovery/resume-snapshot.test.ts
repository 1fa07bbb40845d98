// A long run killed with kill -9 after it saved a machine snapshot resumes from that snapshot
// (replaying only the events after it) and finishes with every task done once.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { readRunFiles } from '../../src/log/read.js';
import { resolveRun } from '../../src/log/write.js';
import { MACHINE_SNAPSHOT_FILE } from '../../src/session/machine-snapshot.js';
import { replayRun } from '../../src/session/replay.js';
import { CLI, ROOT } from '../helpers/team.js';
import { isStray } from '../helpers/recovery-checks.js';
import { waitFor } from '../helpers/wait-event.js';

const TASKS = 190;
// Tasks t170 and after wait for the release file: by then the log holds well over 500 events (about
// four per task), and a snapshot is due every 500.
const GATED = `case "$TEAM_TASK_ID" in t1[7-9][0-9]) while [ ! -e "$TEAM_PROJECT_DIR/release" ]; do sleep 0.05; done ;; esac; exec sh ${join(ROOT, 'test/fixtures/agents/bench-agent.sh')}`;

const dir = mkdtempSync(join(tmpdir(), 'teamline-resume-snapshot-'));
afterAll(() => {
  writeFileSync(join(dir, 'release'), '');
  rmSync(dir, { recursive: true, force: true });
});

const team = (...args: string[]) => execa('node', [CLI, ...args, '--cwd', dir], { reject: false, stdin: 'ignore', env: { TMUX: undefined, TMUX_PANE: undefined } });

describe('team resume from a machine snapshot', () => {
  it('replays only the events after the last snapshot a killed run saved, and finishes the run', async () => {
    mkdirSync(join(dir, '.team'));
    const agent = { adapter: 'command', command: 'sh', args: ['-c', GATED], env: { BENCH_TASKS: String(TASKS) } };
    writeFileSync(join(dir, '.team', 'config.json'), JSON.stringify({ team: { maxTasks: TASKS }, agents: { gated: agent } }));
    const first = execa('node', [CLI, '4:executor', 'many small tasks', '--cwd', dir, '--agent', 'gated'], { reject: false, stdin: 'ignore', detached: true });
    const runDir = await waitFor('the run folder', () => existsSync(join(dir, '.team/runs/current')) && resolveRun(dir, undefined).runDir, 60_000, 50);
    await waitFor('a gated task to start after a snapshot', () => existsSync(join(runDir, MACHINE_SNAPSHOT_FILE)) && readRunFiles(resolveRun(dir, undefined)).events.some((e) => e.event === 'attempt_spawned' && /^t1[7-9]\d$/.test(e.task_id)), 120_000, 200);
    process.kill(first.pid!, 'SIGKILL');
    await first;
    writeFileSync(join(dir, 'release'), '');

    // The kill may land between an attempt's task_started and its worker's start: that attempt is
    // interrupted, and retrying it is the documented way on.
    const resumed = await team('resume', '--retry-interrupted');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const replayed = readFileSync(join(runDir, 'log.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"the log replayed"')).map((l) => JSON.parse(l) as { events: number; replayed: number; fromSnapshot: boolean });
    expect(replayed).toHaveLength(1);
    expect(replayed[0]!.fromSnapshot).toBe(true);
    expect(replayed[0]!.events).toBeGreaterThan(500);
    expect(replayed[0]!.replayed).toBeLessThan(replayed[0]!.events / 2);

    const { events, problems } = readRunFiles(resolveRun(dir, undefined));
    // The kill may cut a write short: its temporary file is reported and ignored, never a fact.
    expect(problems.filter((p) => p.file.startsWith('events/') && !isStray(p))).toEqual([]);
    expect(replayRun(events).snapshot.status).toBe('done');
    const completed = events.filter((e) => e.event === 'task_finished' && e.stage === 'team-exec' && e.status === 'completed').map((e) => (e as { task_id: string }).task_id);
    expect(completed.sort()).toEqual(Array.from({ length: TASKS }, (_, i) => `t${i + 1}`).sort());
  }, 240_000);
});

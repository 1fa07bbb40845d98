import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventFileName, taskEvent, writeRawEvent } from '../helpers/events.js';
import { makeProject, removeProjects, type TestProject } from '../helpers/project.js';
import { makeSimProject } from '../helpers/sim-project.js';

afterEach(removeProjects);

// A project with a run and task t1 started; returns the run id.
async function withStartedTask(project: TestProject, task = 't1'): Promise<string> {
  const runId = await project.startRun();
  const started = await project.team('state', 'start-task', '--run', runId, '--task', task, '--stage', 'team-exec', '--agent', 'sim');
  expect(started.exitCode).toBe(0);
  return runId;
}

describe('team status', () => {
  it('says a fresh project has no run and no approvals', async () => {
    const project = makeProject();
    const result = await project.team('status');
    expect(result).toMatchObject({ exitCode: 0, stderr: '' });
    expect(result.stdout).toBe(`no run in ${project.dir}: .team/runs has no run, and so no approvals\n`);
  });

  it('reads the run whose folder --cwd names (the folder a run prints at its end), not the project\'s latest', async () => {
    const project = makeProject();
    const first = await withStartedTask(project, 't1');
    const second = await project.startRun();
    const runFolder = join(project.dir, '.team', 'runs', first);

    const shown = await project.team('status', '--cwd', runFolder);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^run ${first} `));
    expect(shown.stdout).toContain('t1');
    const inside = await project.team('status', '--cwd', join(runFolder, 'events'), '--json');
    expect(JSON.parse(inside.stdout).run.run_id).toBe(first);
    const latest = await project.team('status', '--cwd', project.dir, '--json');
    expect(JSON.parse(latest.stdout).run.run_id).toBe(second);
  });

  it('says a fresh project has no run and no approvals in JSON', async () => {
    const project = makeProject();
    const result = await project.team('status', '--json');
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ run: null, approvals: [], message: 'no run' });
  });

  it('writes nothing in a fresh project', async () => {
    const project = makeProject();
    await project.team('status');
    expect(existsSync(join(project.dir, '.team'))).toBe(false);
  });

  it('shows a started task with no finish as running and uncertain', async () => {
    const project = makeProject();
    await withStartedTask(project);
    const status = await project.statusJson();
    expect(status.tasks).toHaveLength(1);
    expect(status.tasks[0]).toMatchObject({ id: 't1', status: 'running', attempts: [{ attempt: 1, status: 'running', uncertain: true }] });
    expect(status.attention.uncertain).toEqual([{ task: 't1', attempt: 1 }]);
  });

  it('names the uncertain attempt in the human status', async () => {
    const project = makeProject();
    await withStartedTask(project);
    const result = await project.team('status');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('uncertain: t1 attempt 1 started with no terminal event');
  });

  it('reads a completed task as completed in a later process', async () => {
    const project = makeProject();
    const runId = await withStartedTask(project);
    const finished = await project.team('state', 'finish-task', '--run', runId, '--task', 't1', '--status', 'completed', '--evidence', 'tests pass');
    expect(finished).toMatchObject({ exitCode: 0, stdout: 't1 a1 completed\n' });
    const status = await project.statusJson();
    expect(status.tasks[0]).toMatchObject({ id: 't1', status: 'completed', attempts: [{ attempt: 1, status: 'completed', uncertain: false, evidence: 'tests pass' }] });
    expect(status.attention.uncertain).toEqual([]);
  });

  it('reports two terminal events for one attempt as a conflict, not picking one', async () => {
    const project = makeProject();
    const runId = await withStartedTask(project);
    await project.team('state', 'finish-task', '--run', runId, '--task', 't1', '--status', 'completed');
    const events = project.eventsDir(runId);
    const first = project.listEvents(runId).find((name) => name.includes('-task_finished-'))!;
    // Named to sort after the first whatever this process's clock says (its stamps and the CLI's
    // may differ by a few milliseconds): the same stamp, a later token.
    const second = `${first.slice(0, 22)}-task_finished-t1-a1-zzzzzz.json`;
    const copy = JSON.parse(readFileSync(join(events, first), 'utf8'));
    writeRawEvent(events, second, JSON.stringify({ ...copy, status: 'failed' }));

    const status = await project.statusJson();
    expect(status.attention.conflicts).toEqual([{ task: 't1', attempt: 1, statuses: ['completed', 'failed'], files: [first, second] }]);
    expect(status.tasks[0]).toMatchObject({ status: 'conflict', attempts: [{ status: 'conflict' }] });
    const human = await project.team('status');
    expect(human.stdout).toContain(`conflict: t1 attempt 1 has 2 terminal events (completed, failed): ${first}, ${second}`);
  });

  it('reports an identical copy of a terminal event as a conflict too', async () => {
    const project = makeProject();
    const runId = await withStartedTask(project);
    await project.team('state', 'finish-task', '--run', runId, '--task', 't1', '--status', 'completed');
    const first = project.listEvents(runId).find((name) => name.includes('-task_finished-'))!;
    copyFileSync(join(project.eventsDir(runId), first), join(project.eventsDir(runId), eventFileName('task_finished', 't1', 1)));
    const status = await project.statusJson();
    expect(status.attention.conflicts).toMatchObject([{ task: 't1', attempt: 1, statuses: ['completed', 'completed'] }]);
  });
});

// Each bad file stands where task t1's completion would be; none may complete it.
const BAD_FILES: Array<{ what: string; name: () => string; text: (runId: string) => string; reason: RegExp }> = [
  {
    what: 'malformed JSON',
    name: () => eventFileName('task_finished', 't1', 1),
    text: (runId) => JSON.stringify(taskEvent(runId)).slice(0, -20),
    reason: /^malformed JSON \(.+\); ignored$/,
  },
  { what: 'an empty file', name: () => eventFileName('task_finished', 't1', 1), text: () => '', reason: /^empty file; ignored$/ },
  {
    what: 'an unknown event',
    name: () => eventFileName('task_exploded', 't1', 1),
    text: (runId) => JSON.stringify(taskEvent(runId, { event: 'task_exploded' })),
    reason: /^unknown event "task_exploded"; ignored$/,
  },
  {
    what: 'a stray temporary file',
    name: () => `.tmp-abc123-${eventFileName('task_finished', 't1', 1)}.tmp`,
    text: (runId) => JSON.stringify(taskEvent(runId)),
    reason: /^stray temporary file \(an interrupted write\); ignored$/,
  },
  {
    what: 'a task_finished with a missing field',
    name: () => eventFileName('task_finished', 't1', 1),
    text: (runId) => {
      const { evidence: _evidence, ...rest } = taskEvent(runId);
      return JSON.stringify(rest);
    },
    reason: /^invalid task_finished event: evidence: .+; ignored$/,
  },
  {
    what: 'a file with an unexpected name',
    name: () => 'notes.json',
    text: (runId) => JSON.stringify(taskEvent(runId)),
    reason: /^unexpected file name; ignored$/,
  },
];

describe('team status with bad files in the log', () => {
  it('ignores and reports a folder under an event name instead of crashing', async () => {
    const project = makeProject();
    const runId = await withStartedTask(project);
    const name = eventFileName('task_finished', 't1', 1);
    mkdirSync(join(project.eventsDir(runId), name));
    const status = await project.statusJson();
    expect(status.attention.malformed).toEqual([{ file: `events/${name}`, reason: 'not a regular file (a folder); ignored' }]);
    expect(status.tasks[0]!.status).toBe('running');
  });

  it('reports a FIFO under an event name instead of waiting on it forever', async () => {
    const project = makeProject();
    const runId = await withStartedTask(project);
    const name = eventFileName('task_finished', 't1', 1);
    execFileSync('mkfifo', [join(project.eventsDir(runId), name)]);
    const status = await project.statusJson();
    expect(status.attention.malformed).toEqual([{ file: `events/${name}`, reason: 'not a regular file (a FIFO); ignored' }]);
    expect(status.tasks[0]!.status).toBe('running');
  });

  it('reports a symbolic link under an event name without following it', async () => {
    const project = makeProject();
    const runId = await withStartedTask(project);
    const target = project.write('elsewhere.json', JSON.stringify(taskEvent(runId)));
    const name = eventFileName('task_finished', 't1', 1);
    symlinkSync(target, join(project.eventsDir(runId), name));
    const status = await project.statusJson();
    expect(status.attention.malformed).toEqual([{ file: `events/${name}`, reason: 'a symbolic link (never followed); ignored' }]);
    expect(status.tasks[0]!.status).toBe('running');
  });

  it('stops with exit 2 naming the events folder when it is a file, never showing an empty log', async () => {
    const project = makeProject();
    const runId = await withStartedTask(project);
    const events = project.eventsDir(runId);
    rmSync(events, { recursive: true });
    writeFileSync(events, 'not a folder\n');
    const result = await project.team('status');
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`team: ${events} cannot be read (ENOTDIR); the run's events cannot be read\n`);
  });

  it('stops with exit 2 naming the events folder when it is gone', async () => {
    const project = makeProject();
    const runId = await withStartedTask(project);
    rmSync(project.eventsDir(runId), { recursive: true });
    const result = await project.team('status', '--json');
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`team: ${project.eventsDir(runId)} cannot be read (ENOENT); the run's events cannot be read\n`);
  });

  it('stops with exit 2 naming run.json when it is damaged', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    writeFileSync(join(project.runDir(runId), 'run.json'), '{"run_id": ');
    const result = await project.team('status');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^team: .+\/run\.json is unreadable or not valid JSON \(.+\); the run cannot be read\n$/);
  });

  for (const bad of BAD_FILES) {
    it(`ignores and reports ${bad.what}, never counting it as completed`, async () => {
      const project = makeProject();
      const runId = await withStartedTask(project);
      const name = writeRawEvent(project.eventsDir(runId), bad.name(), bad.text(runId));

      const status = await project.statusJson();
      expect(status.tasks).toMatchObject([{ id: 't1', status: 'running', attempts: [{ attempt: 1, status: 'running', uncertain: true }] }]);
      expect(status.attention.malformed).toHaveLength(1);
      expect(status.attention.malformed[0]!.file).toBe(`events/${name}`);
      expect(status.attention.malformed[0]!.reason).toMatch(bad.reason);
      expect(status.eventCount).toBe(1);

      const human = await project.team('status');
      expect(human.exitCode).toBe(0);
      expect(human.stdout).toContain(`malformed: events/${name} — ${status.attention.malformed[0]!.reason}`);
    });
  }
});

describe('team status: the order of the tasks', () => {
  it('lists the planner, then the PRD, then the plan\'s tasks, verify and fix as the log has them', async () => {
    const project = makeSimProject({ plan: { needsPrd: true, tasks: [{ id: 't1', title: 'One' }, { id: 't2', title: 'Two' }] }, verify: { failPasses: 1 } });
    const run = await project.team('1:executor', 'order the tasks', '--agent', 'sim');
    expect(run.exitCode, run.stderr).toBe(0);
    const status = await project.team('status');
    const ids = status.stdout.split('\n').filter((line) => /^ {2}\S/.test(line) && status.stdout.indexOf(line) > status.stdout.indexOf('tasks (')).map((line) => line.trim().split(/\s+/)[0]);
    expect(ids.slice(0, 4)).toEqual(['plan', 'prd', 't1', 't2']);
    // The header counts the plan's tasks as the end summary does, and says how many are listed.
    const summary = /(\d+) of (\d+) tasks completed/.exec(run.stderr);
    expect(summary, run.stderr).not.toBeNull();
    expect(status.stdout).toContain(`tasks (${summary![2]} planned, ${ids.length} listed with the stages' own):`);
    expect(ids.indexOf('verify-1')).toBeLessThan(ids.findIndex((id) => id!.startsWith('fix-1')));
    expect(ids.findIndex((id) => id!.startsWith('fix-1'))).toBeLessThan(ids.indexOf('verify-2'));
  }, 60_000);
});

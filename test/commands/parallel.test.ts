import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { makeProject, removeProjects } from '../helpers/project.js';
import { ROOT } from '../helpers/team.js';

afterEach(removeProjects);

const WRITER = join(ROOT, 'test/fixtures/checkpoint/append-events.js');
const WRITERS = 8;
const EVENTS_EACH = 25;

// Starts every writer, waits until each says ready, then releases them all at once.
async function runWritersTogether(dir: string, runId: string): Promise<void> {
  const writers: ResultPromise[] = [];
  const ready: Array<Promise<void>> = [];
  for (let w = 1; w <= WRITERS; w++) {
    const child = execa('node', [WRITER, dir, runId, `w${w}`, String(EVENTS_EACH)], { stdin: 'pipe' });
    writers.push(child);
    ready.push(new Promise((resolve) => child.stdout!.once('data', () => resolve())));
  }
  await Promise.all(ready);
  for (const child of writers) child.stdin!.write('go\n');
  await Promise.all(writers);
}

// The (event, task) sequence writer `w` wrote, in its order.
function expectedSequence(w: string): string[] {
  return Array.from({ length: EVENTS_EACH }, (_, i) => `${i % 2 === 0 ? 'task_started' : 'task_finished'} ${w}-t${Math.floor(i / 2)}`);
}

describe('the event log under parallel writers', () => {
  it('keeps every event of 8 writers appending at the same moment, readable and without conflict', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    await runWritersTogether(project.dir, runId);

    expect(project.listEvents(runId)).toHaveLength(WRITERS * EVENTS_EACH);
    const status = await project.statusJson();
    expect(status.eventCount).toBe(WRITERS * EVENTS_EACH);
    expect(status.attention.malformed).toEqual([]);
    expect(status.attention.conflicts).toEqual([]);
    // 13 tasks per writer: 12 started and completed, the last started only.
    expect(status.tasks).toHaveLength(WRITERS * 13);
    expect(status.tasks.filter((t) => t.status === 'completed')).toHaveLength(WRITERS * 12);
    expect(status.attention.uncertain.map((u) => u.task).sort()).toEqual(Array.from({ length: WRITERS }, (_, i) => `w${i + 1}-t12`).sort());
  });

  it('names the files of each writer so that they sort in the order it wrote them', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    await runWritersTogether(project.dir, runId);

    const names = project.listEvents(runId);
    for (let w = 1; w <= WRITERS; w++) {
      const own = names.map((name) => name.match(/^\d{8}T\d{12}Z-(task_\w+?)-(w\d+-t\d+)-a1-[0-9a-z]{6}\.json$/)).filter((m) => m?.[2]?.startsWith(`w${w}-`));
      expect(own.map((m) => `${m![1]} ${m![2]}`)).toEqual(expectedSequence(`w${w}`));
    }
  });

  it('records every start of 8 team processes starting different tasks at once', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    const results = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => project.team('state', 'start-task', '--run', runId, '--task', `p${i}`, '--stage', 'team-exec', '--agent', 'sim')),
    );
    expect(results.map((r) => r.exitCode)).toEqual(Array(WRITERS).fill(0));
    const status = await project.statusJson();
    expect(status.tasks.map((t) => t.id).sort()).toEqual(Array.from({ length: WRITERS }, (_, i) => `p${i}`));
    expect(status.attention.malformed).toEqual([]);
  });
});

// `team watch` piped on a real run of a git project (three workers, the sim agent): every completion
// printed though several land close together, the tasks done of the plan's, and lanes that are
// workers' at every moment of the run's log.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunFiles } from '../../../src/log/read.js';
import { modelOf } from '../../../src/views/watch/model.js';
import { GIT_ENV, makeGitProject, type GitProject } from '../../helpers/git-project.js';
import { removeProjects } from '../../helpers/project.js';
import { CLI } from '../../helpers/team.js';
import { waitFor } from '../../helpers/wait-event.js';

// Six tasks no task waits on, each quick: three workers finish one and take the next at once.
const TITLES = ['Parse the input', 'Check the names', 'Write the report', 'Count the words', 'Sort the list', 'Print the total'];
const SCENARIO = { name: 'watch-progress', plan: { tasks: TITLES.map((title, i) => ({ id: `t${i + 1}`, title, acceptance: ['done'] })) } };
const IDS = TITLES.map((_, i) => `t${i + 1}`);
const WORKERS = new Set(['lead', 'worker-1', 'worker-2', 'worker-3']);

afterAll(removeProjects);

describe('watch progress', () => {
  let project: GitProject;
  let live: string;
  let runExit: number;

  beforeAll(async () => {
    project = makeGitProject(SCENARIO);
    const run = project.run('3:executor', 'six quick tasks', '--agent', 'sim');
    // The watcher starts once the run's folder is named, and reads it every 2.5 s until it ends: a worker often finishes a task and takes the next between two looks.
    await waitFor('the run to start', () => existsSync(join(project.dir, '.team', 'runs', 'current')), 30_000);
    const watch = await execa('node', [CLI, 'watch', '--interval', '2500'], { cwd: project.dir, env: GIT_ENV, reject: false, stdin: 'ignore' });
    live = String(watch.stdout);
    runExit = (await run).exitCode;
  }, 120_000);

  it('prints the completion of every task once, while the run goes and after it ended', async () => {
    expect(runExit).toBe(0);
    const after = await project.team('watch');
    for (const out of [live, after.stdout]) {
      for (const [i, id] of IDS.entries()) {
        const completed = out.split('\n').filter((line) => new RegExp(`^worker-[123] ${id} a1 team-exec completed · ${TITLES[i]}$`).test(line));
        expect(completed, out).toHaveLength(1);
      }
      expect(out).toMatch(/^lead verify-1 a1 team-verify completed$/m);
      expect(out).toMatch(/^6\/6 tasks done$/m);
      expect(out).not.toMatch(/^team-/m);
    }
    expect(after.stdout.split('\n').filter((line) => / a1 team-exec completed/.test(line))).toHaveLength(6);
  });

  it('counts the plan\'s tasks done and names each lane after its worker, with the task\'s title, at every moment of the run', () => {
    const paths = project.readRun().paths;
    const read = readRunFiles(paths);
    let done = 0;
    let planned = 0;
    let workerless = 0;
    for (let n = 1; n <= read.events.length; n++) {
      const at = Date.parse(read.events[n - 1]!.at);
      const model = modelOf({ read: { ...read, events: read.events.slice(0, n) }, projectDir: project.dir, live: () => true, undriven: '', tail: () => '' }, at);
      for (const lane of model.lanes) {
        expect(WORKERS.has(lane.worker), `event ${n}: lane ${lane.worker}`).toBe(true);
        expect(lane.title).toBe(lane.worker === 'lead' ? '' : TITLES[IDS.indexOf(lane.task)]);
      }
      expect(model.tasks.done).toBeGreaterThanOrEqual(done);
      done = model.tasks.done;
      if (model.attempts.some((a) => a.worker === undefined)) workerless++;
      planned = Math.max(planned, model.tasks.total);
    }
    expect({ done, planned }).toEqual({ done: 6, planned: 6 });
    // The moments checked include those of an attempt started whose worker was not recorded yet.
    expect(workerless).toBeGreaterThan(0);
  });
});

// `team watch` piped, on a run of `team state` commands (driven by hand, by no orchestrator): plain
// lines, its uncertain attempt told, and nothing repeated.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProject, removeProjects } from '../../helpers/project.js';
import { CLI } from '../../helpers/team.js';

afterAll(removeProjects);

describe('watch piped', () => {
  it('tells the uncertain attempt of a run driven by hand, names no lane after a stage, and prints each fact once', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    expect((await project.team('state', 'start-task', '--run', runId, '--task', 't1', '--stage', 'team-exec', '--agent', 'me')).exitCode).toBe(0);
    const watch = execa('node', [CLI, 'watch', '--interval', '100'], { cwd: project.dir, reject: false, stdin: 'ignore' });
    let out = '';
    // Several redraws' worth of output, then the test ends the watcher it started.
    await new Promise<void>((resolve) => {
      watch.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('uncertain')) setTimeout(resolve, 600);
      });
    });
    watch.kill('SIGTERM');
    await watch;
    expect(out).toBe(
      [
        'stage team-exec',
        't1 a1 team-exec running',
        'no tasks planned yet',
        'needs attention: uncertain: t1 attempt 1 started with no terminal event',
        '',
      ].join('\n'),
    );
  });
});

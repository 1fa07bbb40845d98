// `--detach` through the built CLI: the starting shell returns while the run goes on, the run
// survives kill -9 of that shell's process group, and `team wait` returns the run's exit code.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, endDetachedRuns, followDetached, lockPid, makeGatedProject, pgidOf } from '../helpers/detached.js';
import { removeProjects } from '../helpers/project.js';
import { makeSimProject } from '../helpers/sim-project.js';
import { CLI } from '../helpers/team.js';
import { waitFor } from '../helpers/wait-event.js';

afterEach(async () => {
  await endDetachedRuns();
  removeProjects();
});

const RUN_ID = /teamline run (\S+) runs detached/;

describe('team --detach', () => {
  it('returns while the run goes on, and kill -9 of the starting shell\'s process group leaves the run going', async () => {
    const project = makeGatedProject();
    // The "terminal": a shell in its own process group that starts the run, then stays.
    const shell = execa('sh', ['-c', `node ${CLI} 1:executor "do the slow thing" --detach > detach.out 2>&1; echo $? > detach.rc; exec sleep 600`], { cwd: project.dir, detached: true, reject: false });
    await waitFor('the detached command to exit', () => existsSync(join(project.dir, 'detach.rc')));
    expect(readFileSync(join(project.dir, 'detach.rc'), 'utf8').trim()).toBe('0');
    const out = readFileSync(join(project.dir, 'detach.out'), 'utf8');
    const runId = RUN_ID.exec(out)?.[1];
    expect(runId, out).toBeDefined();
    expect(out).toContain(`team wait --run ${runId}`);
    expect(out).toContain(`team cancel --run ${runId}`);
    expect((await project.statusJson()).status).toBe('running');

    const orchestrator = lockPid(project, runId!)!;
    expect(pgidOf(orchestrator)).not.toBe(shell.pid);
    process.kill(-shell.pid!, 'SIGKILL');
    await shell;
    expect(alive(orchestrator)).toBe(true);
    expect((await project.statusJson()).status).toBe('running');

    project.write('release', 'go\n');
    const waited = await project.team('wait', '--run', runId!);
    expect(waited.exitCode, waited.stderr).toBe(0);
    expect(waited.stdout).toContain(`── run ${runId}: COMPLETED`);
    expect(readFileSync(join(project.runDir(runId!), 'orchestrator.log'), 'utf8')).toContain(`teamline run ${runId}`);
  });

  it('team wait exits 1 for a detached run that fails', async () => {
    const project = followDetached(makeSimProject('e2e-verify-always-fails'));
    const started = await project.team('1:executor', 'refuse empty names', '--agent', 'sim', '--max-fix-loops', '0', '--detach');
    expect(started.exitCode, started.stderr).toBe(0);
    const waited = await project.team('wait');
    expect(waited.exitCode, waited.stdout).toBe(1);
    expect(waited.stdout).toContain('FAILED');
  });

  it('team ralph --detach runs the persistence loop detached; --json names the run', async () => {
    const project = followDetached(makeSimProject('ralph-approves'));
    const started = await project.team('ralph', '1:executor', 'refuse empty names', '--agent', 'sim', '--detach', '--json');
    expect(started.exitCode, started.stderr).toBe(0);
    const line = JSON.parse(started.stdout) as { type: string; run: string; follow: string[] };
    expect(line).toMatchObject({ type: 'run.detached', follow: [`team wait --run ${line.run}`, `team status --run ${line.run}`, `team cancel --run ${line.run}`] });
    expect(await project.team('wait', '--run', line.run)).toMatchObject({ exitCode: 0 });
    expect(JSON.parse(readFileSync(join(project.runDir(line.run), 'run.json'), 'utf8'))).toMatchObject({ mode: 'ralph' });
  });

  it('team resume --detach continues a run whose orchestrator was killed; team wait says 6 before', async () => {
    const project = makeGatedProject();
    const started = await project.team('1:executor', 'do the slow thing', '--detach');
    const runId = RUN_ID.exec(started.stdout)![1]!;
    await waitFor('slow a1 to be spawned', () => project.listEvents(runId).some((name) => name.includes('-attempt_spawned-slow-a1-')));
    const first = lockPid(project, runId)!;
    process.kill(first, 'SIGKILL');
    await waitFor('the first orchestrator to end', () => !alive(first));

    const orphaned = await project.team('wait', '--run', runId);
    expect(orphaned.exitCode).toBe(6);
    expect(orphaned.stdout).toContain(`but nothing drives it (its orchestrator stopped or died): \`team resume --run ${runId} --detach\` continues it`);

    const resumed = await project.team('resume', '--detach');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`teamline run ${runId} runs detached`);
    expect(lockPid(project, runId)).not.toBe(first);
    project.write('release', 'go\n');
    expect(await project.team('wait', '--run', runId)).toMatchObject({ exitCode: 0 });
  });

  it('refuses bad input before detaching: exit 2 and no run', async () => {
    const project = makeSimProject('e2e-one-task');
    const result = await project.team('stauts', '--detach');
    expect(result).toMatchObject({ exitCode: 2, stdout: '' });
    expect(existsSync(join(project.dir, '.team', 'runs'))).toBe(false);
  });

  it('refuses to resume an ended run with --detach', async () => {
    const project = makeSimProject('e2e-one-task');
    expect((await project.team('1:executor', 'refuse empty names', '--agent', 'sim')).exitCode).toBe(0);
    const result = await project.team('resume', '--detach');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('already ended completed; there is nothing to resume');
  });
});

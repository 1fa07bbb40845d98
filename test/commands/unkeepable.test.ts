// `team` refuses to start a run it cannot keep, with a message naming why and exit 2, before it
// writes anything: a read-only `.team/`, a read-only `.git` for a resumed run with worktrees, or
// (for --detach) a pid namespace that ends with the command. Real read-only bind mounts and pid
// namespaces (`unshare`, root only), as an agent CLI's sandbox makes them.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpCancelProjects } from '../helpers/cancel-run.js';
import { execa } from 'execa';
import { GIT_ENV } from '../helpers/git-project.js';
import { CAN_UNSHARE, endNamespaces, makeRepoProject, NAMESPACE_TASKS, namespaceHolder, teamInNamespace, teamWithReadOnly } from '../helpers/namespace-run.js';
import { leftoverProcesses } from '../helpers/recovery-procs.js';
import { CLI } from '../helpers/team.js';

afterEach(async () => {
  endNamespaces();
  await cleanUpCancelProjects();
});

// The run folders in the project (none when nothing was started).
function runFolders(dir: string): string[] {
  const runs = join(dir, '.team', 'runs');
  return existsSync(runs) ? readdirSync(runs) : [];
}

describe.skipIf(!CAN_UNSHARE)('team (a run it cannot keep)', () => {
  it.each([[[]], [['--detach']]])('refuses a read-only .team/ naming the folder, with exit 2 and no stack trace (%j)', async (flags) => {
    const project = makeRepoProject();
    const result = await teamWithReadOnly(project, '.team', '2:executor', 'a task in a read-only sandbox', ...flags);
    expect(result.stderr).toBe(`team: --cwd: cannot write ${project.dir}/.team/runs (EROFS: read-only file system): teamline keeps each run's files there; run \`team\` where the project folder is writable (in an agent CLI's sandbox: outside it)`);
    expect(result.exitCode).toBe(2);
    expect(runFolders(project.dir)).toEqual([]);
  });

  it('refuses to resume a run with worktrees while .git is read-only, and leaves it resumable', async () => {
    const project = makeRepoProject();
    const run = project.start('2:executor', 'a run killed, then resumed in a sandbox');
    const runId = await project.waitForWorkers(NAMESPACE_TASKS);
    process.kill(run.pid, 'SIGKILL');
    await run.exited;
    const before = project.events(runId).length;

    const resume = await teamWithReadOnly(project, '.git', 'resume', '--run', runId);
    expect(resume.stderr).toBe(
      `team: ${project.dir}/.git cannot be written (EROFS): run ${runId} works in worktrees, whose branches and worktrees are made in the repository; run \`team\` where it can be written (in an agent CLI's sandbox: outside it)`,
    );
    expect(resume.exitCode).toBe(2);
    expect(project.events(runId)).toHaveLength(before);
    expect((await project.run('cancel', '--run', runId)).exitCode).toBe(0);
  }, 120_000);

  it.each([
    ['the command itself', 'node', [] as string[]],
    ['a shell that runs it', 'sh', ['sh', '-c', '"$0" "$@"; status=$?; exit $status']],
  ])('refuses --detach in a pid namespace whose pid 1 is %s', async (_what, pid1, wrapper) => {
    const project = makeRepoProject();
    const detached = await teamInNamespace(project, { wrapper }, '2:executor', 'a task in a sandbox', '--detach');
    expect(detached.stderr).toMatch(
      new RegExp(
        `^team: --detach: this command runs in a process namespace of its own \\(pid:\\[\\d+\\]\\) whose pid 1 \\(${pid1}\\) is this command's own ancestor: when the command ends, the namespace ends and a detached orchestrator with it; run \`team\` outside the sandbox, or run it without --detach \\(it then runs in this command\\)$`,
      ),
    );
    expect(detached.exitCode).toBe(2);
    expect(runFolders(project.dir)).toEqual([]);
  });

  it('names the step Codex misses for --detach (the rule, then trusting the project), and offers running without it only where that works', async () => {
    const project = makeRepoProject();
    const codex = { CODEX_SANDBOX: 'seccomp' };
    const noRule = await teamInNamespace(project, { env: codex }, '2:executor', 'a task in codex', '--detach');
    expect(noRule.exitCode).toBe(2);
    expect(noRule.stderr).toContain('; run `team init --codex` (it writes a rule in .codex/rules/ that lets `team` run outside Codex\'s sandbox), then trust the project in Codex');
    expect(noRule.stderr).toContain(`add \`[projects."${project.dir}"]\` with \`trust_level = "trusted"\` to ~/.codex/config.toml`);
    expect(noRule.stderr).toMatch(/, or run it without --detach \(it then runs in this command\)$/);
    expect((await project.run('init', '--codex')).exitCode).toBe(0);
    const withRule = await teamInNamespace(project, { env: codex }, '2:executor', 'a task in codex', '--detach');
    expect(withRule.stderr).toContain('; trust the project in Codex (answer yes when codex asks whether to trust');
    expect(withRule.stderr).not.toContain('team init --codex');
    // Codex's read-only default: running without --detach would fail too, so it is not offered.
    project.write('.team/runs/.keep', '');
    const readOnly = await teamInNamespace(project, { env: codex, readOnly: '.team' }, '2:executor', 'a task in codex', '--detach');
    expect(readOnly.exitCode).toBe(2);
    expect(readOnly.stderr).toContain(`(without --detach it cannot run here either: ${project.dir}/.team is read-only in this sandbox)`);
    expect(readOnly.stderr).not.toContain('or run it without --detach');
    expect(runFolders(project.dir)).toEqual(['.keep']);
  });

  it('starts a detached run in a pid namespace it only entered (pid 1 is no ancestor of it), as in a container', async () => {
    const project = makeRepoProject();
    const holder = await namespaceHolder();
    const detached = await execa('nsenter', ['--target', String(holder.pid), '--pid', '--mount', 'sh', '-c', 'cd "$0" && exec "$@"', project.dir, process.execPath, CLI, '2:executor', 'a task in a container', '--detach'], { cwd: project.dir, env: GIT_ENV, reject: false, stdin: 'ignore' });
    expect(detached.stdout).toMatch(/runs detached \(orchestrator pid \d+\)/);
    expect(detached.exitCode).toBe(0);
    const runId = await project.waitForWorkers(NAMESPACE_TASKS);
    const cancel = await project.run('cancel', '--run', runId);
    expect(cancel.stderr).toContain(`the orchestrator runs in another process namespace (pid `);
    expect(cancel.stderr).toContain(`run ${runId} cancelled`);
    expect(cancel.exitCode).toBe(0);
    expect(project.events(runId).filter((e) => e.event === 'cancel_requested').map((e) => e.by)).toEqual(['team cancel']);
    expect(await leftoverProcesses(project.runDir(runId), runId)).toEqual([]);
  }, 120_000);
});

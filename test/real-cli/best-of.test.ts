// The best of N across vendors with the real CLIs (issue 38): one task runs as two candidates at once,
// claude in one worktree and codex in another, each writing the same file with its own tools,
// against the scripted model server (one server per CLI, so each candidate's words are its own). The
// gate wants codex's words, so claude's candidate fails it in its own folder; the selector (on
// claude, the verifier's agent) is told both and picks codex's, whose branch is merged. A git
// repository, two workers and the fence, as a user gets them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, makeAgentProject, removeAgentProjects } from '../helpers/agent-project.js';
import { commitAsRepo } from '../helpers/git-project.js';
import { makeCliHome } from './clis.js';
import { ensureRealClis } from './install.mjs';
import { BEST_OF_FILE, BEST_OF_MARK, taskContent } from './model-server/scenario.js';
import { OK_KEY, startModelServer, type ModelServer } from './model-server/server.js';
import { expectNoProcessLeft, markRun } from './leftovers.js';

const GATE = `grep -q codex ${BEST_OF_FILE}`;

describe('the best of claude and codex (real CLIs)', () => {
  let claude: ModelServer;
  let codex: ModelServer;
  let home: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureRealClis();
    [claude, codex] = await Promise.all([startModelServer('claude'), startModelServer('codex')]);
    // One user with both CLIs set up, each pointed at its own server.
    home = mkdtempSync(join(tmpdir(), 'teamline-best-of-home-'));
    env = { ...makeCliHome('claude', claude.url, home).env(OK_KEY), ...makeCliHome('codex', codex.url, home).env(OK_KEY) };
  }, 600_000);

  afterAll(async () => {
    await removeAgentProjects();
    await Promise.all([claude?.close(), codex?.close()]);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('runs the two vendors\' candidates at once, gates each in its own worktree, and merges the one the selector picks', async () => {
    const project = makeAgentProject(env);
    project.writeConfig({ team: { fsync: false }, verify: { commands: [GATE] } });
    project.write('README.md', '# a project the real CLIs work on\n');
    const git = commitAsRepo(project.dir);
    const marker = markRun();
    const result = await project.team(['2:executor', `write a file ${BEST_OF_MARK}`, '--agent', 'claude'], { TEAMLINE_TEST_RUN: marker });
    const files = project.readRun();
    expect(result.exitCode, `${result.stdout}\n${result.stderr}\n${JSON.stringify(eventsOf(files, 'task_finished').map((e) => [e.task_id, e.status, e.evidence]))}`).toBe(0);
    expect(eventsOf(files, 'run_started')[0]?.fence).toEqual({ on: true });
    // Each candidate ran on its own vendor, both at once, each in a worktree of its own.
    const started = eventsOf(files, 'task_started').filter((e) => e.task_id.startsWith('t1--c'));
    expect(started.map((e) => [e.task_id, e.agent])).toEqual([['t1--c1', 'claude'], ['t1--c2', 'codex']]);
    const order = files.events.filter((e) => (e.event === 'task_started' || e.event === 'task_finished') && 'task_id' in e && e.task_id.startsWith('t1--c')).map((e) => e.event);
    expect(order.slice(0, 2)).toEqual(['task_started', 'task_started']);
    expect(new Set(eventsOf(files, 'worktree_ready').filter((e) => e.task_id.startsWith('t1--c')).map((e) => e.path)).size).toBe(2);
    expect(claude.calls.some((c) => c.facts?.taskId === 't1--c1')).toBe(true);
    expect(codex.calls.some((c) => c.facts?.taskId === 't1--c2')).toBe(true);
    // Each one's work, by its own write tool, on its own branch; claude's fails the gate there.
    const branch = `team/${project.runId()}`;
    expect(`${git('show', `${branch}--t1--c1:${BEST_OF_FILE}`)}\n`).toBe(taskContent('claude', 't1'));
    expect(`${git('show', `${branch}--t1--c2:${BEST_OF_FILE}`)}\n`).toBe(taskContent('codex', 't1'));
    expect(eventsOf(files, 'candidate_gated').map((e) => [e.task_id, e.gates.map((g) => g.exitCode)]).sort()).toEqual([['t1--c1', [1]], ['t1--c2', [0]]]);
    // The selector (claude, the verifier's agent) was told both and picked codex's, which is merged.
    const selector = claude.calls.find((c) => c.facts?.stage === 'selector');
    expect(selector?.facts?.candidates).toEqual([{ id: 't1--c1', gates: 'failed' }, { id: 't1--c2', gates: 'passed' }]);
    expect(eventsOf(files, 'candidate_picked').map((e) => [e.task_id, e.pick])).toEqual([['t1', 't1--c2']]);
    expect(`${git('show', `${branch}:${BEST_OF_FILE}`)}\n`).toBe(taskContent('codex', 't1'));
    // Both candidates' spend counts: each reported its tokens.
    const spent = eventsOf(files, 'attempt_usage').filter((u) => u.task_id.startsWith('t1--c') && u.tokens !== undefined).map((u) => u.task_id);
    expect(spent.sort()).toEqual(['t1--c1', 't1--c2']);
    await expectNoProcessLeft(marker);
  }, 600_000);
});

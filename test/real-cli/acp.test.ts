// Real ACP agents as workers (issue 39): the real gemini and opencode CLIs in their ACP modes
// (`gemini --acp`, `opencode acp`) and Zed's ACP adapter of codex (`codex-acp`), pinned in
// test/real-cli/package.json, driven through teamline's ACP bridge (`"adapter": "acp"`), in a git
// repository with 2 workers and the fence, against the scripted model server on 127.0.0.1.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, makeAgentProject, removeAgentProjects } from '../helpers/agent-project.js';
import { commitAsRepo } from '../helpers/git-project.js';
import { makeCliHome, type CliHome } from './clis.js';
import { ensureRealClis, REAL_CLI_BIN } from './install.mjs';
import { expectNoProcessLeft, markRun } from './leftovers.js';
import { taskContent, taskFile } from './model-server/scenario.js';
import { OK_KEY, startModelServer, type ModelServer } from './model-server/server.js';

// A whole pipeline of a slow-starting CLI on a busy machine.
const PIPELINE_TIMEOUT_MS = 600_000;

const AGENTS = [
  { cli: 'gemini', command: 'gemini', args: ['--acp'], tokens: true },
  { cli: 'opencode', command: 'opencode', args: ['acp'], tokens: true },
  // Zed's ACP adapter of codex (pinned beside the CLIs): its session starts read-only in a project it
  // does not trust, and it tells only how full the model's context window is, never the tokens spent.
  { cli: 'codex', command: 'codex-acp', args: [], tokens: false },
] as const;

describe.each(AGENTS)('$cli as an ACP agent (real CLI, in its ACP mode)', ({ cli, command, args, tokens }) => {
  let server: ModelServer;
  let home: CliHome;

  beforeAll(async () => {
    ensureRealClis();
    server = await startModelServer(cli);
    home = makeCliHome(cli, server.url);
  }, 600_000);

  afterAll(async () => {
    await removeAgentProjects();
    await server?.close();
    home?.remove();
  });

  it('runs a whole pipeline through ACP sessions: two exec tasks on two workers in the fence, verify, the fix loop; the session, tokens and permission answers of each attempt recorded, nothing left running', async () => {
    const project = makeAgentProject(home.env(OK_KEY));
    project.writeConfig({ team: { fsync: false }, agents: { [`${command}-acp`]: { adapter: 'acp', command: join(REAL_CLI_BIN, command), args: [...args] } } });
    project.write('README.md', '# a project the real CLI works on\n');
    const git = commitAsRepo(project.dir);
    const marker = markRun();
    const result = await project.team(['2:executor', 'write two files and check them', '--agent', `${command}-acp`], { TEAMLINE_TEST_RUN: marker });
    const files = project.readRun();
    expect(result.exitCode, `${result.stdout}\n${result.stderr}\n${JSON.stringify(eventsOf(files, 'task_finished').map((e) => [e.task_id, e.status, e.evidence]))}`).toBe(0);
    expect(eventsOf(files, 'run_started')[0]?.fence).toEqual({ on: true });
    const branch = `team/${project.runId()}`;
    for (const id of ['t1', 't2']) expect(`${git('show', `${branch}:${taskFile(id)}`)}\n`).toBe(taskContent(cli, id));
    // Each attempt's session id is the agent's own, recorded as it began.
    const finished = eventsOf(files, 'task_finished');
    const sessions = eventsOf(files, 'attempt_usage').filter((u) => u.session_id);
    expect(new Set(sessions.map((u) => `${u.task_id}#${u.attempt}`)).size).toBe(finished.length);
    // Its tokens (ACP's usage; gemini's in the response's _meta) are each attempt's spend.
    const spent = eventsOf(files, 'attempt_usage').filter((u) => u.tokens !== undefined);
    expect(spent.map((u) => `${u.task_id}#${u.attempt}`).sort()).toEqual(tokens ? finished.map((e) => `${e.task_id}#${e.attempt}`).sort() : []);
    for (const u of spent) expect(u.tokens!.input).toBeGreaterThan(0);
    // The agent asked before each write and each command; each answer is in the attempt's output: the
    // plan (read) may write only its result file, exec its work, verify run its check.
    const attempts = join(project.dir, '.team/runs', project.runId(), 'attempts');
    const answers = (task: string) =>
      readFileSync(join(attempts, task, 'a1', 'output.log'), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{"acp":"permission"'))
        .map((l) => JSON.parse(l) as { kind: string; answer: string; why: string });
    expect(answers('plan').length).toBeGreaterThan(0);
    for (const answer of answers('plan')) expect(answer).toMatchObject({ answer: 'allow', why: "the attempt's result file" });
    for (const [task, stage] of [['t1', 'team-exec'], ['verify-1', 'team-verify']] as const) {
      expect(answers(task).length, task).toBeGreaterThan(0);
      for (const answer of answers(task)) expect(answer).toMatchObject({ answer: 'allow', why: `${stage} may run` });
    }
    // gemini asks before its own edits and commands; opencode only before it goes outside its project (the result's folder).
    const kinds = (task: string) => answers(task).map((a) => a.kind);
    if (cli === 'gemini') {
      expect(kinds('t1')).toContain('edit');
      expect(kinds('verify-1')).toContain('execute');
    } else if (cli === 'codex') {
      // codex asks before each edit, its work's and its result file's; the stages that may run were moved
      // out of its read-only start (its own sandbox then lets it write its worktree), the plan was not.
      expect(kinds('t1')).toEqual(['edit', 'edit']);
      const modes = (task: string) => readFileSync(join(attempts, task, 'a1', 'output.log'), 'utf8').split('\n').filter((l) => l.startsWith('{"acp":"mode"')).map((l) => JSON.parse(l) as object);
      expect(modes('plan')).toEqual([]);
      expect(modes('t1')).toEqual([{ acp: 'mode', from: 'read-only', to: 'auto', why: 'team-exec may run' }]);
      expect(modes('verify-1')).toEqual([{ acp: 'mode', from: 'read-only', to: 'auto', why: 'team-verify may run' }]);
    } else {
      expect(kinds('t1')).toEqual(['other']);
    }
    // The result came as the result file the agent wrote, not only the fenced answer.
    expect(existsSync(join(attempts, 't1', 'a1', 'result.json'))).toBe(true);
    await expectNoProcessLeft(marker);
  }, PIPELINE_TIMEOUT_MS);
});

// The built CLI with tmux workers that fail in each way a real agent does, plus a loud one and a long prompt.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskView } from '../../src/log/fold/fold.js';
import { eventsOf, makeAgentProject, removeAgentProjects, scenarioPath, type AgentProject } from '../helpers/agent-project.js';
import { waitForEvent } from '../helpers/wait-event.js';
import { findLeftovers, makeSocketDir, removeSocketDirs, tmuxOf } from '../helpers/tmux-leftovers.js';

// A tmux run on a loaded machine: panes, wrappers and node agents all start slowly.
const RUN_TIMEOUT_MS = 180_000;

const NOTHING_LEFT = { server: false, socket: false, processes: [] };

// Every pipeline role but the executor's two on the sim, so that only exec tasks meet the odd agent.
const SIM_ROLES = { planner: 'sim', analyst: 'sim', verifier: 'sim', architect: 'sim' };

interface TmuxProject extends AgentProject {
  socketDir: string;
}

function tmuxProject(config: Record<string, unknown>): TmuxProject {
  const socketDir = makeSocketDir();
  const project = makeAgentProject({ TMUX_TMPDIR: socketDir });
  project.writeConfig(config);
  return { ...project, socketDir };
}

function simAgent(scenario: string) {
  return { adapter: 'sim', scenario: scenarioPath(scenario) };
}

async function taskOf(project: AgentProject, id: string): Promise<TaskView> {
  const task = (await project.statusJson()).tasks.find((t) => t.id === id);
  if (!task) throw new Error(`no task ${id} in the run`);
  return task;
}

async function expectNothingLeft(project: TmuxProject): Promise<void> {
  expect(await findLeftovers(project.socketDir, project.runId())).toEqual(NOTHING_LEFT);
}

afterEach(async () => {
  await removeAgentProjects();
  await removeSocketDirs();
});

describe('tmux workers', () => {
  it('fail an attempt whose agent exits at once with "exited N", and complete the retry', async () => {
    const project = tmuxProject({ agents: { sim: simAgent('exit-at-once') } });
    const result = await project.team(['1:executor', 'add input validation to the API', '--agent', 'sim', '--tmux']);
    expect(result.exitCode, result.stderr).toBe(0);
    const t1 = await taskOf(project, 't1');
    expect(t1.attempts.map((a) => a.status)).toEqual(['failed', 'completed']);
    expect(t1.attempts[0]!.evidence).toMatch(/^exited 7; /);
    await expectNothingLeft(project);
  }, RUN_TIMEOUT_MS);

  it('fail an attempt whose agent is killed by a signal with "killed by SIGKILL", and complete the retry', async () => {
    // Kills itself on attempt 1; on attempt 2 it writes a valid result.
    const script = [
      'if [ "$TEAM_ATTEMPT" = 1 ]; then kill -KILL $$; fi',
      `printf '%s\\n' '{"status":"completed","summary":"done","artifacts":[],"evidence":"second try","next":""}' > "$TEAM_RESULT_FILE"`,
    ].join('\n');
    const killer = { adapter: 'command', command: 'sh', args: ['-c', script], tmux: true };
    const project = tmuxProject({
      agents: { sim: simAgent('one-task'), k: killer },
      roles: { ...SIM_ROLES, executor: 'k', debugger: 'k' },
    });
    const result = await project.team(['1:executor', 'add input validation to the API', '--tmux']);
    expect(result.exitCode, result.stderr).toBe(0);
    const t1 = await taskOf(project, 't1');
    expect(t1.attempts.map((a) => [a.status, a.agent])).toEqual([['failed', 'k'], ['completed', 'k']]);
    expect(t1.attempts[0]!.evidence).toMatch(/^killed by SIGKILL; /);
    const exit = JSON.parse(readFileSync(join(project.dir, '.team/runs', project.runId(), 'attempts/t1/a1/exit.json'), 'utf8'));
    expect(exit).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    await expectNothingLeft(project);
  }, RUN_TIMEOUT_MS);

  it('complete an attempt whose agent prints 100,000 lines, all of them in output.log', async () => {
    const project = tmuxProject({ agents: { sim: simAgent('loud') } });
    const result = await project.team(['1:executor', 'add input validation to the API', '--agent', 'sim', '--tmux']);
    expect(result.exitCode, result.stderr).toBe(0);
    const t1 = await taskOf(project, 't1');
    expect(t1.attempts.map((a) => a.status)).toEqual(['completed']);
    const output = readFileSync(join(project.dir, '.team/runs', project.runId(), 'attempts/t1/a1/output.log'), 'utf8');
    const lines = output.split('\n').filter((line) => line.startsWith('sim t1 line '));
    expect(lines).toHaveLength(100_000);
    expect(lines[0]).toBe('sim t1 line 1');
    expect(lines[99_999]).toBe('sim t1 line 100000');
    await expectNothingLeft(project);
  }, RUN_TIMEOUT_MS);

  it('fail an attempt whose pane is killed from outside, and complete it as a new attempt', async () => {
    const project = tmuxProject({ agents: { sim: simAgent('hang-first') } });
    const running = project.start(['1:executor', 'add input validation to the API', '--agent', 'sim', '--tmux']);
    const spawned = await waitForEvent(project, 'attempt_spawned', (e) => e.task_id === 't1' && e.attempt === 1);
    const killed = await tmuxOf(project.socketDir, project.runId(), ['kill-pane', '-t', spawned.handle.paneId!]);
    expect(killed.exitCode, killed.stderr).toBe(0);
    const result = await running.result;
    expect(result.exitCode, result.stderr).toBe(0);
    const t1 = await taskOf(project, 't1');
    expect(t1.attempts.map((a) => a.status)).toEqual(['failed', 'completed']);
    expect(t1.attempts[0]!.evidence).toContain('pane killed from outside');
    const retry = eventsOf(project.readRun(), 'attempt_spawned').find((e) => e.task_id === 't1' && e.attempt === 2);
    expect(retry?.handle.paneId).toMatch(/^%\d+$/);
    expect(retry?.handle.paneId).not.toBe(spawned.handle.paneId);
    await expectNothingLeft(project);
  }, RUN_TIMEOUT_MS);

  it.each(['arg', 'stdin'] as const)('deliver a 50,000-character prompt intact to the agent (prompt via %s)', async (via) => {
    // The agent writes sha256 of what it got (argument or stdin) and of $TEAM_PROMPT_FILE, then its result.
    const received = via === 'arg' ? `printf '%s' "$1"` : 'cat';
    const script = [
      `${received} | sha256sum | cut -d' ' -f1 > "$TEAM_PROJECT_DIR/received.sha256"`,
      `sha256sum < "$TEAM_PROMPT_FILE" | cut -d' ' -f1 > "$TEAM_PROJECT_DIR/prompt-file.sha256"`,
      `printf '%s\\n' '{"status":"completed","summary":"hashed the prompt","artifacts":[],"evidence":"sha256 written","next":""}' > "$TEAM_RESULT_FILE"`,
    ].join('\n');
    const digest = { adapter: 'command', command: 'sh', args: ['-c', script, 'digest'], promptVia: via, tmux: true };
    const project = tmuxProject({
      agents: { sim: simAgent('one-task'), digest },
      roles: { ...SIM_ROLES, executor: 'digest', debugger: 'digest' },
      prompts: { 'team-exec': 'long.md' },
    });
    project.write('.team/long.md', makeLongTemplate(50_000));
    const result = await project.team(['1:executor', 'add input validation to the API', '--tmux']);
    expect(result.exitCode, result.stderr).toBe(0);
    const prompt = readFileSync(join(project.dir, '.team/runs', project.runId(), 'attempts/t1/a1/prompt.md'));
    expect(prompt.length).toBeGreaterThanOrEqual(50_000);
    expect(prompt.toString('utf8')).toContain('Task t1 (The one task) for worker-1');
    const sha = createHash('sha256').update(prompt).digest('hex');
    expect(readFileSync(join(project.dir, 'received.sha256'), 'utf8').trim()).toBe(sha);
    expect(readFileSync(join(project.dir, 'prompt-file.sha256'), 'utf8').trim()).toBe(sha);
    await expectNothingLeft(project);
  }, RUN_TIMEOUT_MS);
});

// A prompt template of at least `size` characters, with the characters shells and tmux mangle.
function makeLongTemplate(size: number): string {
  const head = 'Task {{taskId}} ({{taskTitle}}) for {{worker}}.\n\n';
  const line = (n: number) => `${String(n).padStart(5, '0')} 'single' "double" \`tick\` $HOME \\back ;|&<> é → ✓ %s {} [a-z]*\n`;
  let text = head;
  for (let n = 1; text.length < size; n++) text += line(n);
  return `${text}{{result}}\n`;
}

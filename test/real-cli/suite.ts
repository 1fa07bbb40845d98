// The end-to-end checks every real CLI goes through, driven by the built `team` against the
// scripted model server: one server and one scratch home per test file.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, makeAgentProject, removeAgentProjects, type AgentProject } from '../helpers/agent-project.js';
import { commitAsRepo } from '../helpers/git-project.js';
import type { TeamResult } from '../helpers/team.js';
import { makeCliHome, type CliHome, type RealCli } from './clis.js';
import { ensureRealClis } from './install.mjs';
import { FIX_FILE, fixContent, HOSTILE_MARK, taskContent, taskFile } from './model-server/scenario.js';
import { USAGE } from './model-server/turn.js';
import { HANG_KEY, LIMIT_KEY, OK_KEY, OVERLOAD_KEY, QUOTA_KEY, startModelServer, type ModelServer } from './model-server/server.js';
import { expectNoProcessLeft, markRun } from './leftovers.js';
import { saveFixtures } from './record.js';
import { expectTeamToolsUsed, runWithTeamTools } from './team-tools.js';
import { itRunsWithTeamTools } from './team-tools-run.js';
import { itKeepsNotedAttemptsAlive } from './progress-notes-run.js';

// A whole pipeline (plan, two exec tasks, verify, fix, verify) of a slow-starting CLI on a busy machine.
const PIPELINE_TIMEOUT_MS = 600_000;
// The issue's bound for a bad key: well under a minute, including the CLI's start.
const BAD_KEY_TIMEOUT_MS = 50_000;
// The attempt cap the never-answering server meets (team.attemptTimeoutMs): beyond each CLI's
// start-up on a busy machine (opencode and gemini take seconds before their first model call),
// so that the cap cuts off a CLI that waits for its model, not one still starting.
const ATTEMPT_CAP_MS: Record<RealCli, number> = { claude: 10_000, codex: 10_000, gemini: 40_000, opencode: 60_000 };

export interface RealCliContext {
  cli: RealCli;
  server: ModelServer;
  home: CliHome;
  /** A fresh project whose `team` calls reach the CLI with this model key. */
  /** A fresh project, a git repository with a commit (so that two workers get worktrees, as a user's do), whose `team` calls reach the CLI with this model key. */
  project(key: string, config?: Record<string, unknown>): { project: AgentProject; git(...args: string[]): string; team(args: string[]): Promise<TeamResult>; start(args: string[]): ReturnType<AgentProject['start']>; marker: string };
}

// What the model server must see per task under --cost-mode economy (claude resolves its aliases).
const COST_MODELS: Record<string, Record<string, string>> = {
  claude: { plan: 'claude-sonnet', t1: 'claude-haiku', 'verify-1': 'claude-sonnet' },
  codex: { plan: 'gpt-5-codex', t1: 'gpt-5-codex-mini', 'verify-1': 'gpt-5-codex' },
};

// Registers the real-CLI suite of `cli`.
export function describeRealCli(cli: RealCli): void {
  const ctx = {} as RealCliContext;
  ctx.cli = cli;
  let capRun: { run: ReturnType<RealCliContext['project']>; result: Promise<TeamResult> };

  beforeAll(async () => {
    ensureRealClis();
    ctx.server = await startModelServer(cli);
    ctx.home = makeCliHome(cli, ctx.server.url);
    ctx.project = (key, config = {}) => {
      const project = makeAgentProject(ctx.home.env(key));
      project.writeConfig({ team: { fsync: false }, ...config });
      project.write('README.md', '# a project the real CLI works on\n');
      const git = commitAsRepo(project.dir);
      const marker = markRun();
      // PWD stays the test's own folder (not the project), as for `team --cwd <project>`.
      const extra = { TEAMLINE_TEST_RUN: marker };
      return { project, git, marker, team: (args) => project.team(args, extra), start: (args) => project.start(args, extra) };
    };
    // The attempt cap's run spends its cap with the CLI idle on a model that never answers: started
    // here, it waits beside the whole run, and its test reads how it ended.
    const run = ctx.project(HANG_KEY, { team: { fsync: false, maxTaskAttempts: 1, monitorIntervalMs: 1_000, attemptTimeoutMs: ATTEMPT_CAP_MS[cli] } });
    capRun = { run, result: run.team(['2:executor', 'never planned: the model never answers', '--agent', cli]) };
    capRun.result.catch(() => undefined);
  }, 600_000);

  afterAll(async () => {
    await removeAgentProjects();
    await ctx.server?.close();
    ctx.home?.remove();
  });

  describe(`${cli} (real CLI)`, () => {
    describe('a whole run', () => {
      let run: ReturnType<RealCliContext['project']>;
      let result: TeamResult;

      // The user's checkout, branches and shell setup before the run, which t2's agent attacks (HOSTILE_MARK).
      let userBefore: string;
      const userState = () => userStateOf(run, ctx.home.env(OK_KEY).HOME!);

      beforeAll(async () => {
        run = ctx.project(OK_KEY);
        run.project.write('README.md', '# a project the real CLI works on\nmy uncommitted line\n');
        run.project.write('mine.txt', 'mine, never added\n');
        writeFileSync(join(ctx.home.env(OK_KEY).HOME!, '.bashrc'), '# the user\'s shell setup\n');
        userBefore = userState();
        result = await run.team(['2:executor', `write two files and check them ${HOSTILE_MARK}`, '--agent', cli, ...(COST_MODELS[cli] ? ['--cost-mode', 'economy'] : [])]);
        saveFixtures(cli, run.project);
      }, PIPELINE_TIMEOUT_MS);

      it('keeps the agent that attacks the user\'s checkout out of it: checkout, uncommitted and untracked files, branches and ~/.bashrc as they were, the refusals recorded', () => {
        expect(userState()).toBe(userBefore);
        const files = run.project.readRun();
        expect(eventsOf(files, 'run_started')[0]?.fence).toEqual({ on: true });
        // The attack really ran and was refused: the CLI sent its shell's words back to the model.
        const told = ctx.server.calls.filter((c) => c.facts?.taskId === 't2' && c.facts.resultFile.startsWith(`${run.project.dir}/`)).flatMap((c) => c.outputs);
        expect(told.some((output) => output.includes(`${join(run.project.dir, 'README.md')}: Read-only file system`)), told.join('\n---\n')).toBe(true);
        // The run lists what was refused, read from the CLI's output; gemini's JSON output holds no tool results.
        const refused = eventsOf(files, 'fence_refused').filter((e) => e.task_id === 't2').flatMap((e) => e.paths);
        const expected = cli === 'gemini' ? [] : [join(run.project.dir, 'README.md'), join(run.project.dir, 'stray.txt'), join(ctx.home.env(OK_KEY).HOME!, '.bashrc')];
        expect(refused, JSON.stringify(eventsOf(files, 'fence_refused'))).toEqual(expect.arrayContaining(expected));
      });

      it('runs two exec tasks in parallel and a fix loop to completion, the files holding what its tools wrote', () => {
        expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
        const files = run.project.readRun();
        expect(eventsOf(files, 'run_completed')).toHaveLength(1);
        const started = eventsOf(files, 'task_started').map((e) => e.task_id);
        expect(started.slice(0, 3).sort()).toEqual(['plan', 't1', 't2']);
        expect(started.filter((id) => id.startsWith('verify-'))).toEqual(['verify-1', 'verify-2']);
        expect(started.filter((id) => id.startsWith('fix'))).toHaveLength(1);
        // Parallel: both exec tasks were running before either of them finished.
        const order = files.events.filter((e) => (e.event === 'task_started' || e.event === 'task_finished') && (e.task_id === 't1' || e.task_id === 't2')).map((e) => e.event);
        expect(order.slice(0, 2)).toEqual(['task_started', 'task_started']);
        // The work is on the run's integration branch, merged from the workers' worktrees.
        const branch = `team/${run.project.runId()}`;
        for (const id of ['t1', 't2']) expect(`${run.git('show', `${branch}:${taskFile(id)}`)}\n`).toBe(taskContent(cli, id));
        expect(`${run.git('show', `${branch}:${FIX_FILE}`)}\n`).toBe(fixContent(cli));
      });

      it('counts the input its provider served from the prompt cache (the workers\' shared prefix) into the spend, and team status says what it saved', async () => {
        const files = run.project.readRun();
        // The server played a provider's cache: a call whose prompt prefix an earlier call sent had USAGE.cached of its input from it.
        const cachedCalls = ctx.server.calls.filter((c) => c.cached > 0).length;
        expect(cachedCalls).toBeGreaterThan(0);
        const usage = eventsOf(files, 'attempt_usage').filter((e) => e.tokens !== undefined);
        const cached = usage.reduce((n, e) => n + (e.tokens!.cached ?? 0), 0);
        // gemini's stats also count its model router's calls, which carry no teamline prompt.
        expect(cached).toBeGreaterThan(0);
        expect(cached).toBeLessThanOrEqual(cachedCalls * USAGE.cached);
        const status = await run.team(['status']);
        expect(status.stdout).toMatch(new RegExp(`tokens \\d+ in \\(${cached} from the providers' caches, \\d+%\\)`));
      });

      it('runs every exec and fix attempt in its worker\'s worktree, and each writes its result file (not only the fenced answer)', () => {
        const files = run.project.readRun();
        expect(eventsOf(files, 'run_started')[0]?.isolation?.mode).toBe('worktree');
        const work = eventsOf(files, 'attempt_spawned').filter((e) => e.task_id === 't1' || e.task_id === 't2' || e.task_id.startsWith('fix'));
        expect([...new Set(work.map((e) => e.task_id))].sort()).toEqual(['fix-1-d1', 't1', 't2']);
        const ready = eventsOf(files, 'worktree_ready').filter((e) => e.task_id !== 'integration');
        expect([...new Set(ready.map((e) => e.task_id))].sort()).toEqual(['fix-1-d1', 't1', 't2']);
        // Outside the project (the user's test runner never sees them), in the folder run_started recorded.
        const folder = eventsOf(files, 'run_started')[0]?.isolation?.worktrees ?? '(none recorded)';
        for (const e of ready) expect(e.path.startsWith(`${folder}/`) && !e.path.startsWith(`${run.project.dir}/`), e.path).toBe(true);
        const attempts = join(run.project.dir, '.team/runs', run.project.runId(), 'attempts');
        const missing = work.map((e) => join(attempts, e.task_id, `a${e.attempt}`, 'result.json')).filter((file) => !existsSync(file));
        expect(missing).toEqual([]);
      });

      it.runIf(COST_MODELS[cli] !== undefined)('sends each role\'s model as the cost mode chose it (economy: the planner and verifier one tier up)', () => {
        const asked = (task: string) => [...new Set(ctx.server.calls.filter((c) => c.facts?.taskId === task && c.facts.runDir === run.project.dir).map((c) => c.model))];
        const expected = COST_MODELS[cli]!;
        // claude sends its alias resolved (`sonnet` → `claude-sonnet-5`); codex sends the name as given.
        const named = (m: string | undefined, model: string) => m === model || (cli === 'claude' && m?.startsWith(`${model}-`) === true);
        for (const [task, model] of Object.entries(expected)) {
          expect(asked(task).length, `${task}: ${asked(task).join(', ')}`).toBeGreaterThan(0);
          expect(asked(task).filter((m) => !named(m, model)), task).toEqual([]);
        }
        expect(eventsOf(run.project.readRun(), 'run_started')[0]?.costMode).toBe('economy');
      });

      it('passes a verify that must run a command, on what the command printed', () => {
        expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
        const verdicts = eventsOf(run.project.readRun(), 'verify_result').map((e) => [e.task_id, e.verdict]);
        expect(verdicts).toEqual([['verify-1', 'fail'], ['verify-2', 'pass']]);
        // The verifier's command really ran: its output, sent back by the CLI, holds every file.
        const checked = ctx.server.calls.filter((c) => c.facts?.taskId === 'verify-2' && c.outputs.length > 0);
        expect(checked.length).toBeGreaterThan(0);
        for (const text of [taskContent(cli, 't1'), taskContent(cli, 't2'), fixContent(cli)]) expect(checked[0]!.outputs[0]).toContain(text.trim());
      });
    });

    it('gives a worker the team tools at every permission level: it lists the tasks, reserves its file, tells the lead, notes progress and reports through team_done', async () => {
      const levels = ['run', 'read'] as const;
      const projects = levels.map(() => ctx.project(OK_KEY).project.dir);
      const runs = await Promise.all(levels.map((level, i) => runWithTeamTools(cli, ctx.home, projects[i]!, level)));
      for (const [i, level] of levels.entries()) {
        expect(runs[i]!.exitCode, runs[i]!.output).toBe(0);
        expectTeamToolsUsed(ctx.server, cli, projects[i]!, runs[i]!, level);
      }
    }, 180_000);

    describe('with the team tools', () => {
      itRunsWithTeamTools(ctx);
      itKeepsNotedAttemptsAlive(ctx);
    });

    it('fails fast on a bad key, with a message naming the CLI and the cause, and no retry', async () => {
      const run = ctx.project('bad-key-for-the-test');
      const result = await run.team(['2:executor', 'never planned: the key is bad', '--agent', cli]);
      saveFixtures(cli, run.project, 'bad-key');
      expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(1);
      const files = run.project.readRun();
      expect(eventsOf(files, 'task_started').map((e) => e.task_id)).toEqual(['plan']);
      const reason = eventsOf(files, 'run_failed')[0]?.reason ?? '';
      expect(reason).toContain(cli);
      expect(reason).toMatch(/key|auth|log ?in/i);
      expect(result.stderr).toContain(cli);
      expect(ctx.server.calls.some((c) => c.key === 'bad-key-for-the-test')).toBe(true);
      await expectNoProcessLeft(run.marker);
    }, BAD_KEY_TIMEOUT_MS);

    // Every CLI retries a 429 itself first (claude CLAUDE_CODE_MAX_RETRIES times, printing api_retry
    // records with the delay; codex request_max_retries times, printing Reconnecting...; gemini
    // general.maxAttempts times when --model names a model; opencode 5 times, after the
    // retry-after-ms header: 200 ms from the model server), then reports it: teamline takes it
    // for a rate limit, not a failure (issue 29).
    it('retries a rate-limited attempt without counting it a failure, and gives up past team.rateLimitGiveUpMs, saying so', async () => {
      const run = ctx.project(LIMIT_KEY, { team: { fsync: false, maxTaskAttempts: 1, rateLimitGiveUpMs: 1_000 }, agents: boundedRetries(ctx) });
      const result = await run.team(['2:executor', 'never planned: always rate limited', '--agent', cli]);
      saveFixtures(cli, run.project, 'rate-limit');
      expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(1);
      const files = run.project.readRun();
      // maxTaskAttempts is 1: the second attempt ran because the first counted as no failure.
      expect(eventsOf(files, 'task_started').map((e) => `${e.task_id}#${e.attempt}`)).toEqual(['plan#1', 'plan#2']);
      const throttled = eventsOf(files, 'attempt_throttled');
      expect(throttled.map((e) => e.agent)).toEqual([cli, cli]);
      expect(throttled[0]!.reason).toContain('429');
      expect(throttled[0]!.retry_after_ms).toBe(RETRY_AFTER_MS[cli]);
      expect(eventsOf(files, 'run_failed')[0]?.reason).toMatch(new RegExp(`^rate limited: ${cli} was still refused after .* \\(2 rate limits in a row; team.rateLimitGiveUpMs is 1000 ms\\)`));
      // claude and codex print each retry of their own (gemini and opencode print nothing of theirs):
      // told live, and recorded once per episode, here one per attempt.
      if (cli === 'claude' || cli === 'codex') {
        const retrying = eventsOf(files, 'attempt_retrying');
        expect(retrying.map((e) => `${e.task_id}#${e.attempt}`)).toEqual(['plan#1', 'plan#2']);
        expect(retrying[0]!.reason).toContain('429');
        expect(retrying[0]!.retry).toBeGreaterThanOrEqual(1);
        expect(retrying[0]!.of).toBeGreaterThanOrEqual(retrying[0]!.retry!);
        expect(result.stderr).toMatch(new RegExp(`⟳ \\S+: ${cli} is retrying a rate limit, \\d+ of \\d+ \\(plan a1: [^\\n]*429`));
      }
      await expectNoProcessLeft(run.marker);
    }, 120_000);

    // An overload: claude's 529, gemini's 503 UNAVAILABLE (opencode's is read from its recorded
    // output: recorded-output.test.ts).
    it.runIf(cli === 'claude' || cli === 'gemini')('takes an overloaded API (529, gemini 503) for a rate limit too', async () => {
      const run = ctx.project(OVERLOAD_KEY, { team: { fsync: false, maxTaskAttempts: 1, rateLimitGiveUpMs: 1_000 }, agents: boundedRetries(ctx) });
      const result = await run.team(['2:executor', 'never planned: always overloaded', '--agent', cli]);
      saveFixtures(cli, run.project, 'overload');
      expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(1);
      const throttled = eventsOf(run.project.readRun(), 'attempt_throttled');
      expect(throttled).toHaveLength(2);
      expect(throttled[0]!.reason).toMatch(/529|503|overloaded/i);
      await expectNoProcessLeft(run.marker);
    }, 120_000);

    // A spent quota is no rate limit: claude's plan limit (the API's unified rate-limit headers say
    // rejected until the reset), codex's usage_limit_reached with its resets_at. Neither CLI retries
    // it; teamline starts nothing more and stops for a decision (exit 4) that names the reset, in
    // the CLI's words; `team resume` takes the quota as back and tries the attempt again.
    it.runIf(cli === 'claude' || cli === 'codex')('stops for a decision at a spent quota, naming when it resets, and resumes when told it is back', async () => {
      // claude reads the plan's limits only when logged in to a plan (an OAuth token, not an API key).
      const agents = cli === 'claude' ? { claude: { adapter: 'claude', env: { ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: QUOTA_KEY } } } : {};
      const run = ctx.project(QUOTA_KEY, { team: { fsync: false }, agents });
      const result = await run.team(['2:executor', 'never planned: the quota is spent', '--agent', cli]);
      saveFixtures(cli, run.project, 'quota');
      expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(4);
      const files = run.project.readRun();
      expect(eventsOf(files, 'task_started').map((e) => `${e.task_id}#${e.attempt}`)).toEqual(['plan#1']);
      expect(eventsOf(files, 'task_finished').map((e) => [e.task_id, e.status])).toEqual([['plan', 'interrupted']]);
      expect(eventsOf(files, 'attempt_throttled')).toEqual([]);
      const reached = eventsOf(files, 'quota_reached');
      expect(reached.map((e) => e.agent)).toEqual([cli]);
      // The reset time as the CLI said it (the server's reset is 2031-01-01 15:00 UTC).
      expect(reached[0]!.resets, reached[0]!.reason).toMatch(/2031|3(:00)?\s?pm/i);
      const stopped = eventsOf(files, 'run_stopped')[0]?.reason ?? '';
      expect(stopped).toContain(`${cli}'s quota is spent (resets ${reached[0]!.resets})`);
      expect(stopped).toContain('`team resume` once it is back goes on');
      expect(result.stderr).toContain(`: STOPPED — ${cli}'s quota is spent (resets ${reached[0]!.resets})`);
      // No retry loop: the CLI asked its model a handful of times at most, teamline once.
      const asked = ctx.server.calls.filter((c) => c.key === QUOTA_KEY && c.facts?.runDir === run.project.dir).length;
      expect(asked).toBeGreaterThanOrEqual(1);
      expect(asked).toBeLessThanOrEqual(2);
      // team resume takes the quota as back: the planner's attempt goes again (and meets it again).
      const resumed = await run.project.team(['resume']);
      expect(resumed.exitCode, resumed.stderr).toBe(4);
      expect(resumed.stderr).toContain(`${cli}'s quota (it said: resets ${reached[0]!.resets}) taken as back`);
      const again = run.project.readRun();
      expect(eventsOf(again, 'quota_cleared')).toHaveLength(1);
      expect(eventsOf(again, 'task_started').map((e) => `${e.task_id}#${e.attempt}`)).toEqual(['plan#1', 'plan#2']);
      await expectNoProcessLeft(run.marker);
    }, 120_000);

    it('cuts off an attempt whose model never answers at the attempt cap', async () => {
      const { run } = capRun;
      const result = await capRun.result;
      expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(1);
      const files = run.project.readRun();
      const ends = eventsOf(files, 'task_finished');
      expect(ends.map((e) => [e.task_id, e.status])).toEqual([['plan', 'failed']]);
      expect(ends[0]!.evidence).toMatch(/cap|wall-clock|timed out|time limit/i);
      // The CLI was waiting for its model when the cap cut it off.
      expect(ctx.server.calls.some((c) => c.key === HANG_KEY && c.facts?.runDir === run.project.dir)).toBe(true);
      await expectNoProcessLeft(run.marker);
    }, 180_000);

    it('leaves no process behind when cancelled in the middle of an attempt', async () => {
      const run = ctx.project(HANG_KEY);
      const started = run.start(['2:executor', 'cancelled while the model thinks', '--agent', cli]);
      // The model has the plan request (or the run ended without reaching it: then say why).
      const ended = started.result.then((r) => Promise.reject(new Error(`the run ended before its model call: ${r.stdout}\n${r.stderr}`)));
      await Promise.race([ctx.server.waitForCall((c) => c.key === HANG_KEY && c.facts?.stage === 'team-plan' && c.facts.runDir === run.project.dir), ended]);
      const cancel = await run.project.team(['cancel']);
      expect(cancel.exitCode, cancel.stderr).toBe(0);
      const result = await started.result;
      expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(3);
      const files = run.project.readRun();
      expect(eventsOf(files, 'run_cancelled')).toHaveLength(1);
      const handles = eventsOf(files, 'attempt_spawned').map((e) => e.handle);
      expect(handles).toHaveLength(1);
      await expectNoProcessLeft(run.marker, handles.map((h) => h.pgid));
    }, 120_000);
  });
}

// The user's checkout as a string: every file but teamline's, its git status, every branch that is
// not the run's, and the home's .bashrc.
function userStateOf(run: ReturnType<RealCliContext['project']>, home: string): string {
  const files = run.git('ls-files', '--cached', '--others', '--exclude-standard').split('\n').filter((f) => f && !f.startsWith('.team/') && !f.startsWith('.checkpoints/'));
  const contents = files.map((f) => `${f}: ${existsSync(join(run.project.dir, f)) ? readFileSync(join(run.project.dir, f), 'utf8') : '(gone)'}`);
  const branches = run.git('for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads').split('\n').filter((line) => !line.startsWith('refs/heads/team/'));
  return [...contents, ...branches, run.git('status', '--porcelain', '--', '.', ':!.team', ':!.checkpoints'), readFileSync(join(home, '.bashrc'), 'utf8')].join('\n');
}

// The wait each CLI passes on of the model server's answer to LIMIT_KEY: claude its api_retry's
// retry_delay_ms (retry-after: 1), codex none, gemini the API's RetryInfo ("Suggested retry after
// 1s."), opencode the retry-after-ms header of its error event.
const RETRY_AFTER_MS: Record<RealCli, number | undefined> = { claude: 1_000, codex: undefined, gemini: 1_000, opencode: 200 };

// The agents' config that bounds each CLI's own retries of a 429, as a user would: claude
// CLAUDE_CODE_MAX_RETRIES; gemini `general.maxAttempts` in its settings.json, which holds only
// when --model names a model (its auto mode falls back through its own chain of models, 3 and
// then 10 attempts); codex and opencode keep their defaults (4 retries; opencode has no setting).
function boundedRetries(ctx: RealCliContext): Record<string, unknown> {
  if (ctx.cli === 'claude') return { claude: { adapter: 'claude', env: { CLAUDE_CODE_MAX_RETRIES: '1' } } };
  if (ctx.cli !== 'gemini') return {};
  const user = ctx.home.env(OK_KEY).HOME!;
  const home = join(user, 'bounded-retries');
  mkdirSync(join(home, '.gemini'), { recursive: true });
  const settings = JSON.parse(readFileSync(join(user, '.gemini/settings.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(home, '.gemini/settings.json'), JSON.stringify({ ...settings, general: { maxAttempts: 1 } }));
  return { gemini: { adapter: 'gemini', model: 'gemini-2.5-flash', env: { GEMINI_CLI_HOME: home } } };
}

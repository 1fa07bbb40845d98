// Stage routing end to end: the built `team` CLI, the sim agent in real processes, a real git
// repository and two workers. A change under src/auth/ brings a security-reviewer beside the
// verifier, 25 changed files a code-reviewer, a failing build gate goes to the debugger, and a
// reviewer that rejects fails verify with its defects.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHandoffs } from '../../handoffs/read.js';
import { renderFrame } from '../../src/views/watch/frame.js';
import { loadWatchModel } from '../../src/views/watch/model.js';
import { makeGitProject, type GitProject } from '../helpers/git-project.js';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, type RunRead } from '../helpers/sim-project.js';
import { runTeam, type TeamResult } from '../helpers/team.js';
import type { LedgerLine } from '../helpers/sim-project.js';

afterAll(removeProjects);

const ledgerOf = (project: GitProject): LedgerLine[] => readFileSync(project.ledgerFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LedgerLine);

describe('stage routing with the sim agent', () => {
  describe('a change under src/auth/, a failing build gate and a security-reviewer that rejects once', () => {
    let project: GitProject;
    let result: TeamResult;
    let run: RunRead;

    beforeAll(async () => {
      const scenario = {
        plan: { tasks: [{ id: 't1', title: 'Login', acceptance: ['ok'] }, { id: 't2', title: 'Docs', acceptance: ['ok'] }] },
        stages: { 'team-verify': { sleepMs: 400 } },
        explore: { files: ['src/auth/', 'README.md'], commands: ['npm run build'], conventions: ['one file per route'] },
        verify: { reviewers: { 'security-reviewer': { failPasses: 1, defects: [{ id: 's1', description: 'the token is logged in src/auth/login.ts' }] } } },
        rules: [
          { match: { task: 't1' }, do: { files: [{ path: 'src/auth/login.ts', content: 'export const login = () => true;\n' }] } },
          // The build gate passes once the debugger made the build.
          { match: { task: 'fix-1-gate-1' }, do: { files: [{ path: 'build.ok', content: 'built\n' }] } },
        ],
      };
      project = makeGitProject(scenario, { roles: { executor: 'sim', planner: 'sim', analyst: 'sim', verifier: 'sim', architect: 'sim' }, verify: { commands: ['test -f build.ok || { echo "error TS2322: build failed"; exit 2; }'] }, routing: { explore: true } }, { 'README.md': 'demo\n' });
      result = await project.run('2:executor', 'add a login');
      run = project.readRun();
    }, 120_000);

    it('completes after one fix loop', () => {
      expect(result.exitCode, result.stderr).toBe(0);
      expect(eventsOf(run.events, 'fix_loop_started')).toHaveLength(1);
    });

    it('runs the explore agent before the planner, whose prompt and handoff carry its findings', () => {
      const started = eventsOf(run.events, 'task_started').map((e) => e.task_id);
      expect(started.slice(0, 2)).toEqual(['explore', 'plan']);
      expect(eventsOf(run.events, 'explore_found')[0]!.findings).toEqual({ files: ['src/auth/', 'README.md'], commands: ['npm run build'], conventions: ['one file per route'] });
      const prompt = readFileSync(`${run.paths.runDir}/attempts/plan/a1/prompt.md`, 'utf8');
      expect(prompt).toContain('- build and test: npm run build');
      const plan = readHandoffs(run.paths.handoffsDir).find((h) => h.stage === 'team-plan')!;
      expect(plan.text).toContain('explore: src/auth/, README.md');
    });

    it('records the security-reviewer with its reason before its attempt, and runs it beside the verifier', () => {
      const names = run.events.map((e) => (e.event === 'task_started' ? `task_started ${e.task_id}` : e.event));
      const decided = eventsOf(run.events, 'routing_decided').find((e) => e.stage === 'team-verify' && e.loop === 0)!;
      expect(decided.decisions[0]).toEqual({ role: 'security-reviewer', agent: 'sim', why: 'added: src/auth/ changed' });
      expect(names.indexOf('routing_decided', names.indexOf('changes_scanned'))).toBeLessThan(names.indexOf('task_started verify-1.security-reviewer'));
      // Both attempts were running at once: each started before the other finished.
      const span = (task: string) => {
        const started = Date.parse(eventsOf(run.events, 'task_started').find((e) => e.task_id === task)!.at);
        const finished = Date.parse(eventsOf(run.events, 'task_finished').find((e) => e.task_id === task)!.at);
        return [started, finished] as const;
      };
      const [v, r] = [span('verify-1'), span('verify-1.security-reviewer')];
      expect(v[0]).toBeLessThan(r[1]);
      expect(r[0]).toBeLessThan(v[1]);
      expect(ledgerOf(project).find((l) => l.task === 'verify-1.security-reviewer')).toMatchObject({ role: 'security-reviewer', worker: 'security-reviewer' });
    });

    it('fails the first verify with the reviewer\'s and the gate\'s defects, each saying who found it', () => {
      const loop = eventsOf(run.events, 'fix_loop_started')[0]!;
      expect(loop.defects.map((d) => [d.id, d.by])).toEqual([['gate-1', 'gate'], ['security-reviewer-s1', 'security-reviewer']]);
    });

    it('sends the failing gate to the debugger and the reviewer\'s defect to the executor', () => {
      const fix = eventsOf(run.events, 'routing_decided').find((e) => e.stage === 'team-fix')!;
      expect(fix.decisions).toEqual([
        { task_id: 'fix-1-gate-1', role: 'debugger', agent: 'sim', why: 'takes it: a failing gate (gate-1)' },
        { role: 'debugger', agent: 'sim', why: "has no agent of its own: runs on the executor's (sim)" },
      ]);
      const roles = Object.fromEntries(ledgerOf(project).filter((l) => l.stage === 'team-fix').map((l) => [l.task, l.role]));
      expect(roles).toEqual({ 'fix-1-gate-1': 'debugger', 'fix-1-security-reviewer-s1': 'executor' });
      const prompt = readFileSync(`${run.paths.runDir}/attempts/fix-1-gate-1/a1/prompt.md`, 'utf8');
      expect(prompt).toContain('you are the debugger');
    });

    it('shows the decisions in the handoffs and in status', async () => {
      const verify = readHandoffs(run.paths.handoffsDir).find((h) => h.stage === 'team-verify')!;
      expect(verify.text).toContain('routing: security-reviewer added: src/auth/ changed');
      const fix = readHandoffs(run.paths.handoffsDir).find((h) => h.stage === 'team-fix')!;
      expect(fix.text).toContain('routing: fix-1-gate-1: debugger takes it: a failing gate (gate-1)');
      const status = await runTeam(['status'], { cwd: project.dir });
      expect(status.stdout).toContain('routing team-verify: security-reviewer added: src/auth/ changed');
    });

    it('shows the reviewer in team watch on the lane the report draws it on', async () => {
      const report = await runTeam(['report', '--out', `${project.dir}/report.html`], { cwd: project.dir });
      expect(report.exitCode, report.stderr).toBe(0);
      const html = readFileSync(`${project.dir}/report.html`, 'utf8');
      const laneOf = (task: string) => new RegExp(`"task":"${task.replace('.', '\\.')}"[^}]*"lane":"([^"]+)"`).exec(html)?.[1];
      expect([laneOf('verify-1'), laneOf('verify-1.security-reviewer'), laneOf('verify-2.security-reviewer')]).toEqual(['lead', 'security-reviewer', 'security-reviewer']);
      const frame = renderFrame(loadWatchModel(run.paths), 200);
      expect(frame.find((l) => l.startsWith('  security-reviewer '))).toMatch(/^ {2}security-reviewer +verify-2\.security-reviewer a1 +completed/);
      const watch = await runTeam(['watch', '--interval', '100'], { cwd: project.dir });
      expect(watch.stdout).toContain('security-reviewer verify-1.security-reviewer a1 team-verify completed\n');
      expect(watch.stdout).toContain('lead verify-1 a1 team-verify completed\n');
    });
  });

  describe('25 changed files', () => {
    let project: GitProject;
    let result: TeamResult;
    let run: RunRead;

    beforeAll(async () => {
      const files = Array.from({ length: 24 }, (_, i) => ({ path: `lib/part-${i + 1}.js`, content: `export const n = ${i};\n` }));
      const scenario = {
        plan: { tasks: [{ id: 't1', acceptance: ['ok'] }, { id: 't2', acceptance: ['ok'] }], needsPrd: true, needsArchitect: true },
        architect: { notes: ['lib/ exports one module per part'], risks: ['24 parts load slowly'] },
        critic: { objections: ['t2 has no test', 'nothing says how lib/ is loaded'], acceptance: { t2: ['a test covers t2'] } },
        verify: { reviewers: { 'code-reviewer': { failPasses: 'always', defects: [{ id: 'c1', description: 'lib/ repeats one module 24 times' }] } } },
        rules: [{ match: { task: 't1' }, do: { files } }],
      };
      project = makeGitProject(scenario, { roles: { executor: 'sim', planner: 'sim', analyst: 'sim', verifier: 'sim', architect: 'sim', 'code-reviewer': 'sim' }, routing: { critic: true } }, { 'README.md': 'demo\n' });
      result = await project.run('2:executor', 'split the library', '--max-fix-loops', '0');
      run = project.readRun();
    }, 120_000);

    it('runs the architect the planner asked for, its notes and risks in the plan\'s handoff', () => {
      expect(eventsOf(run.events, 'task_started').map((e) => e.task_id).slice(0, 2)).toEqual(['plan', 'architect']);
      const plan = readHandoffs(run.paths.handoffsDir).find((h) => h.stage === 'team-plan')!;
      expect(plan.text).toContain('architect: lib/ exports one module per part');
      expect(plan.text).toContain('architect: 24 parts load slowly');
      // Each attempt's evidence under its own role, not the architect's as the planner's.
      expect(plan.text).toMatch(/- planner: sim agent[^\n]*\n {2}- architect: sim agent/);
    });

    it('runs the critic after the analyst: its criteria reach the task, its objections the PRD handoff', () => {
      expect(eventsOf(run.events, 'task_started').map((e) => e.task_id).slice(0, 4)).toEqual(['plan', 'architect', 'prd', 'critic']);
      expect(readFileSync(`${run.paths.runDir}/attempts/t2/a1/prompt.md`, 'utf8')).toContain('- a test covers t2');
      const prd = readHandoffs(run.paths.handoffsDir).find((h) => h.stage === 'team-prd')!;
      expect(prd.text).toContain('critic: t2 has no test');
      expect(prd.text).toContain('critic: nothing says how lib/ is loaded');
      expect(prd.text).toMatch(/- analyst: sim agent[^\n]*\n {2}- critic: sim agent/);
    });

    it('brings a code-reviewer into verify, with the count of changed files', () => {
      const decided = eventsOf(run.events, 'changes_scanned')[0]!;
      expect(decided.files).toBe(25);
      expect(decided.security).toEqual([]);
      expect(eventsOf(run.events, 'routing_decided').find((e) => e.stage === 'team-verify')!.decisions).toEqual([{ role: 'code-reviewer', agent: 'sim', why: 'added: 25 files changed (more than 20)' }]);
    });

    it('fails verify when the reviewer rejects though the verifier passes, with the reviewer\'s defects', () => {
      expect(result.exitCode, result.stderr).toBe(1);
      expect(eventsOf(run.events, 'verify_result').find((e) => e.task_id === 'verify-1')!.verdict).toBe('pass');
      expect(eventsOf(run.events, 'run_failed')[0]!.reason).toContain('code-reviewer-c1: lib/ repeats one module 24 times');
    });

    it('shows in status each verdict of the pass and every defect with who found it', async () => {
      const status = await runTeam(['status'], { cwd: project.dir });
      expect(status.stdout).toContain('  verify-1: verifier pass, code-reviewer fail\n    defect code-reviewer-c1 (code-reviewer): lib/ repeats one module 24 times\n');
    });
  });
});

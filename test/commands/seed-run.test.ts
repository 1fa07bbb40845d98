// A run as the seed's helper (run_state.py) writes it — run.json with the seed's seven fields only,
// its task events and an approval, times as stamps — read and continued by every command. The
// fixture is kept byte for byte in test/fixtures/seed-runs and copied, never rewritten.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runTeam } from '../helpers/team.js';

const FIXTURE = join(ROOT, 'test/fixtures/seed-runs/project');
const RUN = '20261028T131016577943Z-20fe61';
const made: string[] = [];

// A git project holding a copy of the seed's run.
function seedProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-seed-'));
  made.push(dir);
  cpSync(FIXTURE, dir, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  return dir;
}

// Every file of the fixture's run folder, name → bytes.
function filesOf(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, 'latin1'));
    }
  };
  walk(join(dir, '.team/runs'));
  return out;
}

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a run the seed wrote', () => {
  it('is the seed format exactly: run.json holds the seven seed fields and nothing else', () => {
    const record = JSON.parse(readFileSync(join(FIXTURE, '.team/runs', RUN, 'run.json'), 'utf8'));
    expect(Object.keys(record)).toEqual(['run_id', 'created_at', 'profile', 'stage', 'status', 'session', 'parent_session']);
  });

  it('is read by team status, with the stage and status its events give', async () => {
    const dir = seedProject();
    const status = await runTeam(['status', '--run', RUN], { cwd: dir });
    expect(status.stderr).toBe('');
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toContain(`run ${RUN} (profile default)`);
    expect(status.stdout).toContain('stage  team-exec');
    expect(status.stdout).toMatch(/plan\s+completed/);
    // The seed's stamps are times: the plan's attempt took 13:10:18.10 → 13:15:42.88.
    expect(status.stdout).toContain('a1 completed · team-plan · agent planner · 324.8s');
    expect(status.stdout).toContain('uncertain: api-validation attempt 1 started with no terminal event');
    expect(status.stdout).toContain('team-plan docs/plan.md by dana');
    expect(status.stdout).not.toContain('STALE');
  });

  it('is read by team status --json, whose run record tells the stage and status of now', async () => {
    const dir = seedProject();
    const status = await runTeam(['status', '--json'], { cwd: dir });
    expect(status.exitCode).toBe(0);
    const doc = JSON.parse(status.stdout);
    expect(doc.stage).toBe('team-exec');
    // run.json says team-plan / running as written at the start; one truth per field.
    expect(doc.run.stage).toBe(doc.stage);
    expect(doc.run.status).toBe(doc.status);
    expect(doc.run.task).toBeUndefined();
    expect(doc.tasks.map((t: { id: string }) => t.id)).toEqual(['plan', 'api-validation']);
  });

  it('is read by team state status, team list and team report, and none of them writes into it', async () => {
    const dir = seedProject();
    const before = filesOf(dir);
    const state = await runTeam(['state', 'status'], { cwd: dir });
    expect(state.exitCode).toBe(0);
    expect(state.stdout).toContain(`run ${RUN}`);
    const list = await runTeam(['list', '--json'], { cwd: dir });
    expect(list.stderr).toBe('');
    const rows = JSON.parse(list.stdout);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: RUN, status: 'running', session: 'sess-7f3a', started: '2026-10-28T13:10:16.577Z' });
    const out = join(dir, 'report.html');
    const report = await runTeam(['report', '--out', out], { cwd: dir });
    expect(report.stderr).toBe('');
    expect(report.exitCode).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain(RUN);
    expect(filesOf(dir)).toEqual(before);
  });

  it('is continued by team state finish-task, retry, start-task and approve', async () => {
    const dir = seedProject();
    const at = { cwd: dir };
    expect((await runTeam(['state', 'finish-task', '--run', RUN, '--task', 'api-validation', '--status', 'interrupted', '--evidence', 'stopped for the night', '--next', 'retry'], at)).exitCode).toBe(0);
    expect((await runTeam(['state', 'retry', '--run', RUN, '--task', 'api-validation', '--reason', 'go on'], at)).exitCode).toBe(0);
    expect((await runTeam(['state', 'start-task', '--run', RUN, '--task', 'api-validation', '--stage', 'team-exec', '--agent', 'executor', '--input', 'docs/plan.md'], at)).exitCode).toBe(0);
    expect((await runTeam(['state', 'finish-task', '--run', RUN, '--task', 'api-validation', '--status', 'completed', '--artifact', 'docs/plan.md', '--evidence', 'validated', '--next', 'document it'], at)).exitCode).toBe(0);
    const approve = await runTeam(['state', 'approve', '--run', RUN, '--stage', 'team-exec', '--artifact', 'docs/plan.md', '--by', 'dana'], at);
    expect(approve.exitCode).toBe(0);
    const doc = JSON.parse((await runTeam(['status', '--json'], at)).stdout);
    const task = doc.tasks.find((t: { id: string }) => t.id === 'api-validation');
    expect(task.attempts.map((a: { status: string }) => a.status)).toEqual(['interrupted', 'completed']);
    expect(doc.attention.uncertain).toEqual([]);
    expect(doc.approvals.map((a: { stage: string }) => a.stage)).toEqual(['team-plan', 'team-exec']);
    // The seed's own files are as they were: only new files were added beside them.
    const original = filesOf(seedProjectPristine());
    const now = filesOf(dir);
    for (const [name, bytes] of original) expect(now.get(name)).toBe(bytes);
  });

  it('is found without its current file: the newest run is the latest', async () => {
    const dir = seedProject();
    rmSync(join(dir, '.team/runs/current'));
    const status = await runTeam(['status'], { cwd: dir });
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toContain(`run ${RUN}`);
  });

  it('is refused by team resume, which names what it lacks and writes nothing', async () => {
    const dir = seedProject();
    const before = filesOf(dir);
    const resume = await runTeam(['resume'], { cwd: dir });
    expect(resume.exitCode).toBe(2);
    expect(resume.stderr).toContain('no run_started event');
    expect(resume.stderr).toContain('team state');
    expect(filesOf(dir)).toEqual(before);
  });

  it('still refuses a run.json whose seed fields are missing, naming them', async () => {
    const dir = seedProject();
    const file = join(dir, '.team/runs', RUN, 'run.json');
    const record = JSON.parse(readFileSync(file, 'utf8'));
    delete record.session;
    record.mode = 'solo';
    execFileSync('sh', ['-c', `cat > '${file}'`], { input: JSON.stringify(record) });
    let status = await runTeam(['status'], { cwd: dir });
    expect(status.exitCode).toBe(2);
    expect(status.stderr).toContain('session must be a string');
    record.session = 's';
    execFileSync('sh', ['-c', `cat > '${file}'`], { input: JSON.stringify(record) });
    status = await runTeam(['status'], { cwd: dir });
    expect(status.exitCode).toBe(2);
    expect(status.stderr).toContain('mode "solo"');
  });
});

// A fresh copy, to compare against.
function seedProjectPristine(): string {
  return seedProject();
}

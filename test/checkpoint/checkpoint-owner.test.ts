// `.checkpoints/team.checkpoint.json` belongs to skill `team`: a file there of another skill (or no
// checkpoint at all) is moved to history byte for byte and said so, and teamline writes its own;
// teamline's own older file keeps the user's fields (OPCHAIN.md).
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpCancelProjects, makeCancelProject, type CancelProject } from '../helpers/cancel-run.js';

afterEach(cleanUpCancelProjects);

const FILE = '.checkpoints/team.checkpoint.json';

// A project with a one-task sim run and `bytes` at the checkpoint's name.
function projectWith(bytes: Buffer | string): CancelProject {
  const project = makeCancelProject({ scenario: 'e2e-one-task.json', graceMs: 500 });
  project.write(FILE, '');
  writeFileSync(join(project.dir, FILE), bytes);
  return project;
}

const historyOf = (project: CancelProject) => readdirSync(join(project.dir, '.checkpoints', 'history'));
const checkpointOf = (project: CancelProject) => JSON.parse(readFileSync(join(project.dir, FILE), 'utf8')) as Record<string, any>;

describe('opchain checkpoint owner', () => {
  it('moves another skill\'s file whose run id looks newer to history, says so, and writes its own', async () => {
    const deploy = `${JSON.stringify({ skill: 'deploy', status: 'in_progress', updated_at: '2026-11-30T10:00:00.000Z', skill_state: { run_id: '99991231T000000000000Z-zzzzzz' } }, null, 2)}\n`;
    const project = projectWith(deploy);
    const run = await project.run('1:executor', 'a run beside a deploy skill');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(historyOf(project)).toEqual(['deploy.2026-11-30T10-00-00-000Z.checkpoint.json']);
    expect(readFileSync(join(project.dir, '.checkpoints/history/deploy.2026-11-30T10-00-00-000Z.checkpoint.json'), 'utf8')).toBe(deploy);
    expect(run.stderr).toContain(`.checkpoints/team.checkpoint.json was skill "deploy"'s checkpoint: moved as it was to .checkpoints/history/deploy.2026-11-30T10-00-00-000Z.checkpoint.json; teamline writes its own there\n`);
    const doc = checkpointOf(project);
    expect(doc).toMatchObject({ skill: 'team', status: 'complete' });
    expect(doc.skill_state.run_id).not.toBe('99991231T000000000000Z-zzzzzz');
  }, 60_000);

  it('keeps another skill\'s file without a run id as it was, in history', async () => {
    const other = '{"skill": "other", "skill_state": {"notes": "mine"}}\n';
    const project = projectWith(other);
    const run = await project.run('1:executor', 'a run beside another skill');
    expect(run.exitCode, run.stderr).toBe(0);
    const [moved] = historyOf(project);
    expect(moved).toMatch(/^other\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.checkpoint\.json$/);
    expect(readFileSync(join(project.dir, '.checkpoints/history', moved!), 'utf8')).toBe(other);
    expect(checkpointOf(project).skill).toBe('team');
  }, 60_000);

  it('moves a big file that is not UTF-8 byte for byte, never re-encoded', async () => {
    const bytes = Buffer.alloc(6 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131) & 0xff;
    const project = projectWith(bytes);
    const run = await project.run('1:executor', 'a run beside a binary file');
    expect(run.exitCode, run.stderr).toBe(0);
    const [moved] = historyOf(project);
    expect(readFileSync(join(project.dir, '.checkpoints/history', moved!)).equals(bytes)).toBe(true);
    expect(run.stderr).toContain('.checkpoints/team.checkpoint.json was not a checkpoint of skill team: moved as it was to');
  }, 60_000);

  it('never writes through a .checkpoints that links out of the project', async () => {
    const project = makeCancelProject({ scenario: 'e2e-one-task.json', graceMs: 500 });
    const outside = mkdtempSync(join(tmpdir(), 'teamline-outside-'));
    try {
      symlinkSync(outside, join(project.dir, '.checkpoints'));
      const run = await project.run('1:executor', 'a run whose checkpoints folder leads out');
      expect(run.exitCode, run.stderr).toBe(0);
      expect(readdirSync(outside)).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 60_000);

  it('says where the user looks that a checkpoint file linking out of the project was not written, and never claims it', async () => {
    const project = makeCancelProject({ scenario: 'e2e-one-task.json', graceMs: 500 });
    const outside = mkdtempSync(join(tmpdir(), 'teamline-outside-'));
    try {
      writeFileSync(join(outside, 'theirs.json'), '{"keep": true}\n');
      project.write('.checkpoints/keep', '');
      symlinkSync(join(outside, 'theirs.json'), join(project.dir, FILE));
      const run = await project.run('1:executor', 'a run whose checkpoint file leads out');
      expect(run.exitCode, run.stderr).toBe(0);
      expect(readFileSync(join(outside, 'theirs.json'), 'utf8')).toBe('{"keep": true}\n');
      // Told live once, and again in the end summary, which claims no record.
      expect(run.stderr.match(/! \.checkpoints\/team\.checkpoint\.json not written: .*leads outside the project/g)).toHaveLength(1);
      const end = run.stderr.split('── run')[1]!;
      expect(end).not.toContain("the run's checkpoint record, kept in the project");
      expect(end).toContain(`needs attention: ${FILE} is a symbolic link out of ${project.dir} (never followed): the run's checkpoint record was not written there`);
      const status = await project.run('status');
      expect(status.stdout).toContain(`needs attention:\n  ${FILE} is a symbolic link out of`);
      expect(status.stdout).not.toContain('needs attention: nothing');
      const json = JSON.parse((await project.run('status', '--json')).stdout);
      expect(json.attention.project).toEqual([expect.stringContaining(`${FILE} is a symbolic link out of`)]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 60_000);

  it('claims the checkpoint record in the end summary when it holds the run', async () => {
    const project = makeCancelProject({ scenario: 'e2e-one-task.json', graceMs: 500 });
    const run = await project.run('1:executor', 'a run with its checkpoint');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(`${FILE}: the run's checkpoint record, kept in the project`);
    expect(run.stderr).not.toContain('not written');
  }, 60_000);

  it('keeps the user\'s notes in skill_state and context_primer of its own older file across a new run', async () => {
    const project = makeCancelProject({ scenario: 'e2e-one-task.json', graceMs: 500 });
    expect((await project.run('1:executor', 'the first run')).exitCode).toBe(0);
    const first = checkpointOf(project);
    const noted = { ...first, skill_state: { ...first.skill_state, note: 'ask before landing' }, context_primer: { ...first.context_primer, user_preferences: ['short commits'], glossary: ['PRD'] } };
    writeFileSync(join(project.dir, FILE), `${JSON.stringify(noted, null, 2)}\n`);
    const second = await project.run('1:executor', 'the second run');
    expect(second.exitCode, second.stderr).toBe(0);
    const doc = checkpointOf(project);
    expect(doc.skill_state.run_id).not.toBe(first.skill_state.run_id);
    expect(doc.skill_state.note).toBe('ask before landing');
    expect(doc.context_primer).toMatchObject({ user_preferences: ['short commits'], glossary: ['PRD'] });
    expect(second.stderr).not.toContain('moved as it was');
    expect(historyOf(project)).toHaveLength(1);
  }, 60_000);
});

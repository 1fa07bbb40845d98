// `team checkpoint validate`: OPCHAIN.md's rules over checkpoint files, from the CLI.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeProject, removeProjects } from '../helpers/project.js';

afterAll(removeProjects);

const FILE = '.checkpoints/team.checkpoint.json';
const BASE = {
  protocol_version: '1.1',
  skill: 'team',
  project: 'demo',
  created_at: '2026-11-30T10:00:00.000Z',
  updated_at: '2026-11-30T10:00:00.000Z',
  phase: 'team-exec',
  step: 't1',
  progress_summary: 'working',
  next_actions: ['wait'],
};

describe('checkpoint validate', () => {
  it('passes a file the driver merged, and fails one left with conflict markers, naming the file', async () => {
    const project = makeProject();
    project.write(FILE, `${JSON.stringify({ ...BASE, status: 'complete', project_dir: project.dir }, null, 2)}\n`);
    const ok = await project.team('checkpoint', 'validate');
    expect(ok).toEqual({ exitCode: 0, stdout: `ok   ${join(project.dir, FILE)}\n`, stderr: '' });
    project.write('other.checkpoint.json', '<<<<<<< ours\n{}\n');
    const bad = await project.team('checkpoint', 'validate', 'other.checkpoint.json');
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toMatch(/^FAIL .*other\.checkpoint\.json\n {2}error: invalid JSON/);
  });

  it('fails warnings only with --strict, and refuses a missing file with exit 2', async () => {
    const project = makeProject();
    project.write(FILE, `${JSON.stringify({ ...BASE, status: 'complete', project_dir: project.dir, progress_summary: 'x'.repeat(1300) }, null, 2)}\n`);
    expect((await project.team('checkpoint', 'validate')).exitCode).toBe(0);
    const strict = await project.team('checkpoint', 'validate', '--strict');
    expect(strict.exitCode).toBe(1);
    expect(strict.stdout).toContain('  warning: progress_summary: 1300 characters, above 1200\n');
    const missing = await project.team('checkpoint', 'validate', 'nope.json');
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe(`team checkpoint validate: ${join(project.dir, 'nope.json')} does not exist\n`);
  });
});

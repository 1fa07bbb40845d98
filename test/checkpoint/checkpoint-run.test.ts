// Every version of `.checkpoints/team.checkpoint.json` that real runs of the built CLI write passes OPCHAIN.md's rules.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunFiles } from '../../src/log/read.js';
import { runPaths } from '../../src/log/write.js';
import { foldRun } from '../../src/log/fold/fold.js';
import { makeCheckpointFields } from '../../src/checkpoint/fields.js';
import { validateCheckpointText } from '../../src/checkpoint/validate.js';
import { readSnaps, snapshottingSim } from '../helpers/checkpoint-snap.js';
import { removeProjects } from '../helpers/project.js';
import { allRoles, makeSimProject, type SimProject } from '../helpers/sim-project.js';
import type { TeamResult } from '../helpers/team.js';

afterAll(removeProjects);

type Doc = Record<string, any>;

// Another skill's checkpoint beside teamline's: never read or written by a run.
const OTHER = '.checkpoints/other.checkpoint.json';
const OTHER_TEXT = '{"skill": "other", "skill_state": {"secret": 1}}\n';

function checkpointOf(project: SimProject): { text: string; doc: Doc } {
  const text = readFileSync(join(project.dir, '.checkpoints/team.checkpoint.json'), 'utf8');
  return { text, doc: JSON.parse(text) as Doc };
}

function expectValid(text: string, name: string): void {
  const verdict = validateCheckpointText(text, 'team.checkpoint.json');
  expect(verdict.errors, name).toEqual([]);
  expect(verdict.warnings, name).toEqual([]);
  expect(text, name).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
}

describe('opchain checkpoint of a run', () => {
  let project: SimProject;
  let first: TeamResult;
  let second: TeamResult;
  let afterFirst: { text: string; doc: Doc };
  let snapsOfFirst: Array<{ name: string; text: string }>;
  let statusOfFirst: ReturnType<SimProject['statusView']>;

  beforeAll(async () => {
    project = makeSimProject('ralph-rejects-once');
    const config = { agents: { snap: snapshottingSim(project.dir) }, roles: allRoles('snap') };
    project.write('.team/config.json', JSON.stringify(config, null, 2));
    project.write(OTHER, OTHER_TEXT);
    first = await project.team('ralph', '2:executor', 'refuse empty names');
    afterFirst = checkpointOf(project);
    snapsOfFirst = readSnaps(project.dir);
    statusOfFirst = project.statusView();
    // Another tool's fields in the file: a new run must keep them.
    const doc = { ...afterFirst.doc, eval_scores: [{ rubric: 'review', score: 3, max: 5 }], context_primer: { ...afterFirst.doc.context_primer, user_preferences: ['short commits'] } };
    writeFileSync(join(project.dir, '.checkpoints/team.checkpoint.json'), `${JSON.stringify(doc, null, 2)}\n`);
    project.write('scenario.json', JSON.stringify({ name: 'always-fails', verify: { failPasses: 'always' } }));
    second = await project.team('1:executor', 'refuse empty names again', '--max-fix-loops', '1');
  });

  it('is written at every stage an agent works in, and each version passes the validator', () => {
    expect(first.exitCode, first.stderr).toBe(0);
    const stages = new Set(snapsOfFirst.map((s) => s.name.split('-').slice(0, 2).join('-')));
    expect([...stages].sort()).toEqual(['ralph-review', 'team-exec', 'team-fix', 'team-plan', 'team-verify'].sort());
    for (const snap of snapsOfFirst) {
      expectValid(snap.text, snap.name);
      const doc = JSON.parse(snap.text) as Doc;
      expect(doc, snap.name).toMatchObject({ skill: 'team', protocol_version: '1.1', status: 'in_progress', project_dir: project.dir });
      // Fix tasks run as team-fix attempts inside the machine's team-exec stage.
      const stage = snap.name.split('-').slice(0, 2).join('-');
      expect(doc.phase, snap.name).toBe(stage === 'team-fix' ? 'team-exec' : stage);
      if (stage === 'team-fix') expect(doc.step, snap.name).toContain('fix loop 1');
      expect(doc.next_actions.length, snap.name).toBeGreaterThan(0);
    }
  });

  it('keeps created_at across writes and restamps updated_at', () => {
    const docs = [...snapsOfFirst.map((s) => JSON.parse(s.text) as Doc), afterFirst.doc];
    expect(new Set(docs.map((d) => d.created_at)).size).toBe(1);
    const updated = docs.map((d) => Date.parse(d.updated_at)).sort((a, b) => a - b);
    expect(new Set(updated).size).toBeGreaterThan(3);
  });

  it('ends complete with one row per task, the handoffs\' decisions and the fix loop', () => {
    expectValid(afterFirst.text, 'after the first run');
    const doc = afterFirst.doc;
    expect(doc.status).toBe('complete');
    expect(doc.step).toBe('iteration 1 · fix loop 1 · completed');
    const status = statusOfFirst;
    expect(doc.progress_table.map((r: Doc) => r.id)).toEqual(status.tasks.map((t) => t.id));
    expect(doc.progress_table.every((r: Doc) => r.status === 'complete')).toBe(true);
    expect(doc.context_primer.key_decisions.some((d: string) => d.startsWith('team-plan: '))).toBe(true);
    expect(doc.context_primer.key_decisions.length).toBeLessThanOrEqual(20);
    expect(doc.skill_state).toMatchObject({ run_id: status.run.run_id, run_status: 'completed', mode: 'ralph' });
    expect(doc.cost.total_usd).toBe(status.usage.run.costUsd);
    expect(doc.recently_done[0].action).toBe('run completed');
    expect(doc.blockers).toEqual([]);
  });

  it('holds what a fresh read of the log gives (the orchestrator writes it from its own fold)', () => {
    const paths = runPaths(project.dir, afterFirst.doc.skill_state.run_id as string);
    const files = readRunFiles(paths);
    const owned = makeCheckpointFields(foldRun(files, project.dir), paths);
    for (const [key, value] of Object.entries(owned)) expect(afterFirst.doc[key], key).toEqual(key === 'context_primer' ? expect.objectContaining(value) : value);
  });

  it('moves the last run\'s file to history when a new run starts, keeping the fields it does not own and other skills\' files', () => {
    expect(second.exitCode, second.stderr).toBe(1);
    const history = readdirSync(join(project.dir, '.checkpoints/history'));
    expect(history).toHaveLength(1);
    expect(history[0]).toBe(`team.${afterFirst.doc.updated_at.replace(/[:.]/g, '-')}.checkpoint.json`);
    const old = readFileSync(join(project.dir, '.checkpoints/history', history[0]!), 'utf8');
    expect(JSON.parse(old).skill_state.run_id).toBe(afterFirst.doc.skill_state.run_id);
    const { text, doc } = checkpointOf(project);
    expectValid(text, 'after the second run');
    expect(doc.status).toBe('failed');
    expect(doc.skill_state.run_status).toBe('failed');
    expect(doc.created_at > afterFirst.doc.created_at).toBe(true);
    expect(doc.eval_scores).toEqual([{ rubric: 'review', score: 3, max: 5 }]);
    expect(doc.context_primer.user_preferences).toEqual(['short commits']);
    expect(readFileSync(join(project.dir, OTHER), 'utf8')).toBe(OTHER_TEXT);
  });
});

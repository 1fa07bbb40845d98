// The built `team` CLI writes one handoff per completed stage, in order, in shape, and hands them to later prompts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHandoffShape, readHandoffs, type HandoffFile } from '../../handoffs/read.js';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, makeSimProject, type RunRead } from '../helpers/sim-project.js';
import type { TeamResult } from '../helpers/team.js';

// Plan with tasks lacking acceptance criteria (so team-prd runs), then one fix loop.
const STAGES = ['team-plan', 'team-prd', 'team-exec', 'team-verify', 'team-fix', 'team-exec', 'team-verify'];

afterAll(removeProjects);

describe('pipeline handoffs', () => {
  let result: TeamResult;
  let run: RunRead;
  let handoffs: HandoffFile[];

  beforeAll(async () => {
    const project = makeSimProject('e2e-verify-fails-once');
    result = await project.team('2:executor', 'refuse empty names', '--agent', 'sim');
    run = project.readRun();
    handoffs = readHandoffs(run.paths.handoffsDir);
  });

  it('writes one handoff per completed stage, numbered in order', () => {
    expect(result.exitCode, result.stderr).toBe(0);
    expect(handoffs.map((h) => `${String(h.index).padStart(2, '0')}-${h.stage}`)).toEqual(STAGES.map((stage, i) => `${String(i + 1).padStart(2, '0')}-${stage}`));
  });

  it('gives every handoff the shape of the spec', () => {
    for (const handoff of handoffs) expect(checkHandoffShape(handoff.text), `${handoff.index}-${handoff.stage}`).toBeUndefined();
  });

  it('writes each handoff before the next stage starts', () => {
    const order = run.events.filter((e) => e.event === 'stage_entered' || e.event === 'handoff_written').map((e) => `${e.event === 'stage_entered' ? 'enter' : 'handoff'} ${e.stage}`);
    expect(order).toEqual(STAGES.flatMap((stage) => [`enter ${stage}`, `handoff ${stage}`]));
  });

  it('fills the handoffs with the real task and defect ids', () => {
    const text = (i: number) => handoffs[i]!.text;
    for (const i of [0, 1, 2]) {
      expect(text(i), STAGES[i]).toContain('schema');
      expect(text(i), STAGES[i]).toContain('handler');
    }
    expect(text(3)).toContain('d-empty-name');
    expect(text(4)).toContain('fix-1-d-empty-name');
    expect(text(5)).toContain('fix-1-d-empty-name');
    expect(text(6)).toMatch(/verdict pass/);
  });

  it("lists every earlier handoff as the inputs of each stage's attempts", () => {
    const written = eventsOf(run.events, 'handoff_written').map((e) => e.path);
    for (const started of eventsOf(run.events, 'task_started')) {
      const before = eventsOf(run.events, 'handoff_written').filter((e) => e.file < started.file).map((e) => e.path);
      expect(started.inputs, started.task_id).toEqual(before);
    }
    expect(written).toHaveLength(STAGES.length);
  });

  it("includes in each attempt's prompt the text of each stage's latest earlier handoff, and names the ones a later handoff of their stage superseded", () => {
    const started = eventsOf(run.events, 'task_started').filter((e) => e.inputs.length > 0);
    expect(started.length).toBeGreaterThan(0);
    let named = 0;
    for (const attempt of started) {
      const prompt = readFileSync(join(run.paths.attemptsDir, attempt.task_id, `a${attempt.attempt}`, 'prompt.md'), 'utf8');
      const inputs = attempt.inputs.map((input) => ({ input, handoff: handoffs.find((h) => input.endsWith(`/${h.index.toString().padStart(2, '0')}-${h.stage}.md`))! }));
      for (const { input, handoff } of inputs) {
        const superseded = inputs.some((later) => later.handoff.stage === handoff.stage && later.handoff.index > handoff.index);
        if (superseded) {
          named += 1;
          expect(prompt, `${attempt.task_id} a${attempt.attempt} prompt names ${input}`).toContain(`- ${input} (${handoff.stage})`);
          expect(prompt.includes(handoff.text.trim()), `${attempt.task_id} a${attempt.attempt} prompt leaves out the text of ${input}`).toBe(false);
        } else {
          expect(prompt.includes(handoff.text.trim()), `${attempt.task_id} a${attempt.attempt} prompt has ${input}`).toBe(true);
        }
      }
    }
    // The run's fix loop gave later attempts a superseded handoff to name.
    expect(named).toBeGreaterThan(0);
  });
});

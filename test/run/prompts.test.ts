import { describe, expect, it } from 'vitest';
import { configSchema } from '../../config/schema.js';
import type { AttemptInput } from '../../machines/types.js';
import { buildPrompt, type PromptContext } from '../../src/run/prompts.js';

const INPUT: AttemptInput = {
  taskId: 't2',
  attempt: 1,
  stage: 'team-exec',
  role: 'executor',
  agent: 'claude',
  worker: 'worker-2',
  def: { id: 't2', title: 'write the parser', description: 'Parse the input.', blockedBy: [], acceptance: [] },
  dependencies: [],
  defects: [],
  handoffs: [],
  runTask: 'build a tool',
  tasks: [],
  iteration: 1,
  loop: 0,
};

function context(teamTools?: boolean): PromptContext {
  return { input: INPUT, config: configSchema.parse({}), projectDir: '/work/project', resultFile: '/work/project/.team/runs/r1/attempts/t2/a1/result.json', handoffTexts: [], workers: 2, ...(teamTools !== undefined && { teamTools }) };
}

describe('buildPrompt', () => {
  it('gives a worker with the team tools their rules just before its result: its own task only, no sub-agents or team commands, absolute paths, the tools to report, the shutdown answer', () => {
    const prompt = buildPrompt(context(true));
    const rules = prompt.slice(prompt.indexOf('## Your team tools'), prompt.indexOf('## Your result'));
    expect(prompt.indexOf('## Your team tools')).toBeGreaterThan(prompt.indexOf('Work in the project folder'));
    expect(rules).toContain('Claim nothing: your task is t2; work only on it');
    expect(rules).toContain('Never start sub-agents or other workers, and never run `team` commands.');
    expect(rules).toContain('Use absolute paths: the project folder is /work/project.');
    expect(rules).toContain('A shutdown request means: stop, and answer at once');
    expect(rules).toContain('Report with team_done (or team_fail');
    // The result file stays the fallback.
    expect(prompt).toContain('Write this JSON to the file named by $TEAM_RESULT_FILE (/work/project/.team/runs/r1/attempts/t2/a1/result.json)');
  });

  it('leaves the prompt of a worker without the tools as it was', () => {
    const without = buildPrompt(context());
    expect(buildPrompt(context(false))).toBe(without);
    expect(without).not.toMatch(/team_|team tools/);
    expect(buildPrompt(context(true)).replace(/## Your team tools[\s\S]*?(?=## Your result)/, '')).toBe(without);
  });
});

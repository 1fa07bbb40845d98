// Each attempt's prompt: the worker's team tool rules when it has the tools; a stage's template
// override leaves the routed roles' own templates alone, and a role's template is overridden by its
// own name (real config and template files in a folder).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load.js';
import type { AttemptInput, Stage } from '../../machines/types.js';
import { configSchema } from '../../config/schema.js';
import { buildPrompt, type PromptContext } from '../../src/attempt/prepare/prompts.js';

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
    expect(prompt.indexOf('## Your team tools')).toBeGreaterThan(prompt.indexOf('in the project folder named at the end'));
    expect(rules).toContain('Claim nothing: work only on your task (named below), never on another task of the list.');
    expect(rules).toContain('Never start sub-agents or other workers, and never run `team` commands.');
    expect(rules).toContain('Use absolute paths, in the project folder named at the end.');
    expect(rules).toContain('A shutdown request means: stop, and answer at once');
    expect(rules).toContain('Report with team_done (or team_fail');
    // The task, the folder and the result file (the fallback) are named at the end, once.
    const attempt = prompt.slice(prompt.indexOf('## This attempt'));
    expect(attempt).toContain('You are worker-2, the executor, on t2. Work in the project folder (/work/project).');
    expect(attempt).toContain('to the file named by $TEAM_RESULT_FILE (/work/project/.team/runs/r1/attempts/t2/a1/result.json)');
    expect(prompt.indexOf('## Your task: t2')).toBeGreaterThan(prompt.indexOf('## Your result'));
  });

  it('names the files the plan gave the task, and asks to keep to them; a task given none is told so', () => {
    const owned = buildPrompt({ ...context(), input: { ...INPUT, def: { ...INPUT.def!, files: ['src/parser.ts', 'test/parser/**'] } } });
    const section = owned.slice(owned.indexOf('### The files the plan gave this task'), owned.indexOf('### Results of the tasks'));
    expect(section).toContain('- src/parser.ts\n- test/parser/**');
    expect(section).toContain('Other tasks may own the other files');
    expect(buildPrompt(context())).toContain('### The files the plan gave this task\n\n- none named: change what the task needs');
  });

  it('lists each task\'s files where a stage reads the plan\'s tasks (the critic, the verifier)', () => {
    const tasks = [{ id: 't1', title: 'parser', description: '', files: ['src/parser.ts'] }, { id: 't2', title: 'docs', description: '', blockedBy: ['t1'] }];
    const prompt = buildPrompt({ ...context(), input: { ...INPUT, stage: 'team-verify', role: 'verifier', taskId: 'verify-1', tasks } });
    expect(prompt).toContain('- t1: parser — files: src/parser.ts\n- t2: docs (after t1)');
  });

  it('leaves the prompt of a worker without the tools as it was', () => {
    const without = buildPrompt(context());
    expect(buildPrompt(context(false))).toBe(without);
    expect(without).not.toMatch(/team_|team tools/);
    expect(buildPrompt(context(true)).replace(/## Your team tools[\s\S]*?(?=## Your result)/, '')).toBe(without);
  });
});

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

// A project whose config overrides the named templates with one line naming the file.
function projectWith(prompts: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-prompts-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.team'));
  for (const file of Object.values(prompts)) writeFileSync(join(dir, '.team', file), `my own ${file} for {{role}}\n`);
  writeFileSync(join(dir, '.team', 'config.json'), JSON.stringify({ prompts }));
  return dir;
}

function promptOf(dir: string, stage: Stage, role: string, taskId: string): string {
  const { config, file } = loadConfig(dir);
  const input: AttemptInput = { taskId, attempt: 1, stage, role, agent: 'sim', worker: role, dependencies: [], defects: [], handoffs: [], runTask: 'add a login', tasks: [], iteration: 1, loop: 0 };
  return buildPrompt({ input, config, configFile: file, projectDir: dir, resultFile: join(dir, 'result.json'), handoffTexts: [], workers: 2 });
}

describe('run/prompts templates', () => {
  it('keeps the reviewers\' and the debugger\'s own templates when team-verify and team-fix are overridden', () => {
    const dir = projectWith({ 'team-verify': 'verify.md', 'team-fix': 'fix.md' });
    expect(promptOf(dir, 'team-verify', 'verifier', 'verify-1')).toBe('my own verify.md for verifier\n');
    expect(promptOf(dir, 'team-fix', 'executor', 'fix-1-d1')).toBe('my own fix.md for executor\n');
    for (const [stage, role] of [['team-verify', 'security-reviewer'], ['team-verify', 'code-reviewer'], ['team-fix', 'debugger']] as const) {
      const prompt = promptOf(dir, stage, role, `x.${role}`);
      expect(prompt).toMatch(new RegExp(`^# teamline · ${stage} · you are the ${role}`));
      expect(prompt).not.toContain('my own');
    }
  });

  it('overrides a routed role\'s template by its own name', () => {
    const dir = projectWith({ debugger: 'debug.md', 'security-reviewer': 'sec.md', 'plan-architect': 'arch.md' });
    expect(promptOf(dir, 'team-fix', 'debugger', 'fix-1-gate-1')).toBe('my own debug.md for debugger\n');
    expect(promptOf(dir, 'team-verify', 'security-reviewer', 'verify-1.security-reviewer')).toBe('my own sec.md for security-reviewer\n');
    expect(promptOf(dir, 'team-plan', 'architect', 'architect')).toBe('my own arch.md for architect\n');
    expect(promptOf(dir, 'team-verify', 'code-reviewer', 'verify-1.code-reviewer')).toMatch(/^# teamline · team-verify · you are the code-reviewer/);
  });

  it('refuses a prompts key that names no template, naming the field', () => {
    const dir = projectWith({ reviewer: 'r.md' });
    expect(() => loadConfig(dir)).toThrow(`config ${join(dir, '.team', 'config.json')} is invalid:\n✖ Unrecognized key: "reviewer"\n  → at prompts`);
  });
});

// What a provider can cache: the prefix two prompts share. teamline's own text is the prompt less the
// task's own words (its id, title, description, acceptance, files) and the attempt's (worker, paths).
describe('prompts a provider can cache', () => {
  const handoffTexts = ['# Handoff: team-plan\n\n## Decided\n- t1 "parser" → worker-1\n- t2 "docs" → worker-2', '# Handoff: team-prd\n\n## Decided\n- every task has acceptance criteria'];
  const execOf = (taskId: string, worker: string, attempt = 1, run = 'r1') =>
    buildPrompt({
      input: { ...INPUT, taskId, worker, attempt, def: { id: taskId, title: `write the ${taskId} part`, description: `The ${taskId} part of the tool.`, blockedBy: [], acceptance: [`${taskId} works`], files: [`src/${taskId}.ts`] }, runTask: 'build a tool that parses its input and documents it' },
      config: configSchema.parse({}),
      projectDir: `/work/project/.team/worktrees/${worker}`,
      resultFile: `/work/project/.team/runs/${run}/attempts/${taskId}/a${attempt}/result.json`,
      handoffTexts,
      workers: 2,
      teamTools: true,
    });
  const shared = (a: string, b: string) => {
    let n = 0;
    while (n < a.length && a[n] === b[n]) n += 1;
    return n;
  };
  const ownWords = (prompt: string) => prompt.slice(prompt.indexOf('## Your task:')).length;

  it('gives two workers\' exec prompts of one run a shared prefix of at least 80% of teamline\'s text: the task and the attempt come last', () => {
    const one = execOf('t1', 'worker-1');
    const two = execOf('t2', 'worker-2');
    const teamlines = one.length - ownWords(one);
    expect(shared(one, two) / teamlines).toBeGreaterThanOrEqual(0.8);
    // Nothing of the task or the worker comes before its own section.
    expect(shared(one, two)).toBeGreaterThanOrEqual(one.indexOf('## Your task:'));
  });

  it('keeps a task\'s prompt byte for byte up to its attempt section across its attempts (a retry, a resume)', () => {
    const first = execOf('t1', 'worker-1', 1);
    const retry = execOf('t1', 'worker-1', 2);
    expect(shared(first, retry)).toBeGreaterThanOrEqual(first.indexOf('## This attempt'));
  });
});

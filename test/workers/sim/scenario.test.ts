import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadScenario, ScenarioError } from '../../../workers/sim/scenario.js';
import { listPlanTasks } from '../../../workers/sim/results.js';
import { SCENARIOS } from './run-sim.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function writeScenario(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-scenario-'));
  dirs.push(dir);
  const file = join(dir, 'scenario.json');
  writeFileSync(file, text);
  return file;
}

function loadError(file: string): string {
  try {
    loadScenario(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as Error).message;
  }
  throw new Error('the scenario loaded');
}

describe('scenario', () => {
  it('uses the demo scenario when no file is given', () => {
    const demo = loadScenario(undefined);
    expect(demo.name).toBe('demo');
    expect(listPlanTasks(demo.plan).map((task) => [task.id, task.blockedBy ?? []])).toEqual([
      ['t1', []],
      ['t2', ['t1']],
      ['t3', ['t1']],
      ['t4', ['t2', 't3']],
    ]);
    expect(demo.plan.needsPrd).toBe(true);
    expect(demo.verify.failPasses).toBe(1);
  });

  it('fills neutral defaults for an empty scenario', () => {
    const empty = loadScenario(writeScenario('{}'));
    expect(empty).toMatchObject({ plan: { count: 1 }, verify: { failPasses: 0 }, review: { rejectFirst: 0 }, rules: [] });
  });

  it('names the file when it is not JSON', () => {
    const file = writeScenario('{ "plan": ');
    expect(loadError(file)).toMatch(new RegExp(`^sim scenario ${file} is not valid JSON: `));
  });

  it('names the file when it cannot be read', () => {
    expect(loadError('/nonexistent/scenario.json')).toMatch(/^sim scenario \/nonexistent\/scenario.json cannot be read: /);
  });

  it('names the file and the field of a bad value', () => {
    const file = writeScenario(JSON.stringify({ rules: [{ match: { stage: 'team-exec' }, do: { sleepMs: -5 } }] }));
    const message = loadError(file);
    expect(message).toContain(`sim scenario ${file} is invalid:`);
    expect(message).toContain('✖ Too small: expected number to be >=0\n  → at rules[0].do.sleepMs');
  });

  it('refuses an unknown field, so typos do not pass silently', () => {
    const message = loadError(writeScenario(JSON.stringify({ stages: { 'team-exec': { sleepMS: 10 } } })));
    expect(message).toContain('Unrecognized key: "sleepMS"');
    expect(message).toContain('→ at stages["team-exec"]');
  });

  it('refuses an unknown stage in a rule', () => {
    const message = loadError(writeScenario(JSON.stringify({ rules: [{ match: { stage: 'team-build' }, do: {} }] })));
    expect(message).toContain('→ at rules[0].match.stage');
  });

  it('refuses a plan with both tasks and count', () => {
    const message = loadError(writeScenario(JSON.stringify({ plan: { count: 2, tasks: [{ id: 't1' }] } })));
    expect(message).toContain('give either tasks or count, not both');
    expect(message).toContain('→ at plan');
  });

  it('loads every fixture scenario', () => {
    for (const name of readdirSync(SCENARIOS)) expect(() => loadScenario(join(SCENARIOS, name)), name).not.toThrow();
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load.js';
import { attemptCapMs } from '../../src/attempt/cap.js';
import { DEFAULT_PERMISSIONS, permissionFor } from '../../workers/adapters/permissions.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

// Loads a project config holding `config`; the error message when it does not load.
function load(config: unknown) {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-limits-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.team'));
  writeFileSync(join(dir, '.team', 'config.json'), JSON.stringify(config));
  try {
    return loadConfig(dir).config;
  } catch (error) {
    return (error as Error).message.split('\n').slice(1).join('\n');
  }
}

describe('config: attempt caps and permissions', () => {
  it('caps every attempt at an hour unless a stage has its own cap', () => {
    const defaults = load({});
    expect(typeof defaults === 'object' && attemptCapMs(defaults, 'team-exec')).toBe(3_600_000);
    const config = load({ team: { attemptTimeoutMs: 1_200_000, attemptTimeoutMsPerStage: { 'team-plan': 300_000 } } });
    expect(typeof config === 'object' && [attemptCapMs(config, 'team-plan'), attemptCapMs(config, 'team-verify')]).toEqual([300_000, 1_200_000]);
  });

  it('names a cap for a stage that does not exist', () => {
    expect(load({ team: { attemptTimeoutMsPerStage: { 'team-build': 1000 } } })).toBe('✖ Unrecognized key: "team-build"\n  → at team.attemptTimeoutMsPerStage');
  });

  it('gives exec, verify and fix the run level and plan, prd and review the read level, each overridable per agent', () => {
    expect(DEFAULT_PERMISSIONS).toEqual({ 'team-plan': 'read', 'team-prd': 'read', 'team-exec': 'run', 'team-verify': 'run', 'team-fix': 'run', 'ralph-review': 'read' });
    const config = load({ agents: { careful: { adapter: 'claude', permissions: { 'team-exec': 'edit' } } } });
    expect(typeof config === 'object' && permissionFor(config.agents.careful!, 'team-exec')).toBe('edit');
    expect(typeof config === 'object' && permissionFor(config.agents.careful!, 'team-verify')).toBe('run');
  });

  it('names a permission level that does not exist and where it is', () => {
    expect(load({ agents: { careful: { adapter: 'claude', permissions: { 'team-exec': 'all' } } } })).toBe(
      '✖ Invalid option: expected one of "read"|"edit"|"run"\n  → at agents.careful.permissions["team-exec"]',
    );
  });
});

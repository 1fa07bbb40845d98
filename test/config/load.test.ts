import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load.js';
import { ConfigError } from '../../config/errors.js';
import { makeProject, removeProjects } from '../helpers/project.js';

const dirs: string[] = [];
afterEach(() => {
  dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  removeProjects();
});

// A project folder whose .team/config.json holds `text`; returns the folder and the file.
function projectWithConfig(text: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-config-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.team'));
  const file = join(dir, '.team', 'config.json');
  writeFileSync(file, text);
  return { dir, file };
}

// The message of the ConfigError loading throws.
function loadError(dir: string, explicit?: string): string {
  try {
    loadConfig(dir, explicit);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the config loaded');
}

describe('config/load', () => {
  it('applies every default when the project has no config', () => {
    const dir = mkdtempSync(join(tmpdir(), 'teamline-config-'));
    dirs.push(dir);
    const { config, file } = loadConfig(dir);
    expect(file).toBeUndefined();
    expect(config).toMatchObject({
      team: { maxAgents: 20, maxTasks: 50, defaultAgentType: 'executor', monitorIntervalMs: 30_000, shutdownTimeoutMs: 15_000, maxFixLoops: 3, maxTaskAttempts: 2, fsync: true },
      ralph: { maxIterations: 10 },
      watchdog: { statusCheckMs: 300_000, reassignMs: 600_000 },
      verify: { commands: [] },
      agents: {},
      roles: {},
    });
  });

  it('fills in the defaults a partial config leaves out', () => {
    const { dir, file } = projectWithConfig(JSON.stringify({ team: { maxFixLoops: 1 }, verify: { commands: ['npm test'] } }));
    const loaded = loadConfig(dir);
    expect(loaded.file).toBe(file);
    expect(loaded.config.team).toMatchObject({ maxFixLoops: 1, maxTaskAttempts: 2, maxTasks: 50 });
    expect(loaded.config.verify.commands).toEqual(['npm test']);
    expect(loaded.config.ralph.maxIterations).toBe(10);
  });

  it('names the file and team.maxFixLoops for a wrong type there', () => {
    const { dir, file } = projectWithConfig(JSON.stringify({ team: { maxFixLoops: 'three' } }));
    expect(loadError(dir)).toBe(`config ${file} is invalid:\n✖ Invalid input: expected number, received string\n  → at team.maxFixLoops`);
  });

  it('names the field of a number out of range', () => {
    const { dir } = projectWithConfig(JSON.stringify({ team: { maxAgents: 21 } }));
    expect(loadError(dir)).toMatch(/✖ Too big: expected number to be <=20\n {2}→ at team\.maxAgents$/);
  });

  it('names an unknown key and where it is', () => {
    const { dir, file } = projectWithConfig(JSON.stringify({ team: { maxFixLoop: 3 } }));
    expect(loadError(dir)).toBe(`config ${file} is invalid:\n✖ Unrecognized key: "maxFixLoop" (did you mean "maxFixLoops"?)\n  → at team`);
  });

  it('names team.telemetry.endpoint when it is no OTLP/HTTP URL, or one with a password in it, and its protocol when it is none of the two', () => {
    for (const endpoint of ['ftp://collector:4318', 'http://user:secret@collector:4318', 'collector:4318']) {
      const { dir } = projectWithConfig(JSON.stringify({ team: { telemetry: { endpoint } } }));
      expect(loadError(dir), endpoint).toMatch(/✖ not an OTLP\/HTTP URL with no credentials in it: http:\/\/host:4318\n {2}→ at team\.telemetry\.endpoint$/);
    }
    const { dir } = projectWithConfig(JSON.stringify({ team: { telemetry: { protocol: 'grpc' } } }));
    expect(loadError(dir)).toMatch(/→ at team\.telemetry\.protocol$/);
    const ok = projectWithConfig(JSON.stringify({ team: { telemetry: { endpoint: 'https://collector.example:4318/otlp' } } }));
    expect(loadConfig(ok.dir).config.team.telemetry).toEqual({ enabled: true, endpoint: 'https://collector.example:4318/otlp', content: false });
  });

  it('names an unknown top-level key', () => {
    const { dir } = projectWithConfig(JSON.stringify({ teams: {} }));
    expect(loadError(dir)).toContain('✖ Unrecognized key: "teams" (did you mean "team"?)');
  });

  it('suggests the key an agent entry knows, and says nothing when no key is near', () => {
    const { dir } = projectWithConfig(JSON.stringify({ agents: { mine: { adapter: 'command', command: 'echo', comand: 'x' } }, team: { zzzzzz: 1 } }));
    const message = loadError(dir);
    expect(message).toContain('✖ Unrecognized key: "comand" (did you mean "command"?)\n  → at agents.mine');
    expect(message).toContain('✖ Unrecognized key: "zzzzzz"\n  → at team');
  });

  it('names the file that is not JSON', () => {
    const { dir, file } = projectWithConfig('{\n  "team": {\n    maxFixLoops: 3 } }');
    expect(loadError(dir)).toMatch(new RegExp(`^config ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid JSON at line 3, column 5: `));
  });

  it('names a role that points at an unknown agent', () => {
    const { dir, file } = projectWithConfig(JSON.stringify({ roles: { planner: 'gpt-9' } }));
    expect(loadError(dir)).toBe(`config ${file} is invalid:\n✖ role "planner" names agent "gpt-9", which is neither in agents nor built in\n  → at roles.planner`);
    const typo = projectWithConfig(JSON.stringify({ roles: { planner: 'claud' } }));
    expect(loadError(typo.dir)).toContain('names agent "claud", which is neither in agents nor built in (did you mean "claude"?)');
  });

  it('accepts a role naming a configured agent or a built-in one', () => {
    const { dir } = projectWithConfig(JSON.stringify({ agents: { fast: { adapter: 'command', command: 'echo' } }, roles: { planner: 'claude', executor: 'fast' } }));
    expect(loadConfig(dir).config.roles).toEqual({ planner: 'claude', executor: 'fast' });
  });

  it('names an --config file that does not exist', () => {
    const dir = mkdtempSync(join(tmpdir(), 'teamline-config-'));
    dirs.push(dir);
    const missing = join(dir, 'nope.json');
    expect(loadError(dir, missing)).toBe(`config ${missing}: no such file (from --config)`);
  });

  it('reads --config in place of the project config', () => {
    const { dir } = projectWithConfig(JSON.stringify({ team: { maxFixLoops: 'bad' } }));
    const other = join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({ team: { maxFixLoops: 5 } }));
    expect(loadConfig(dir, other)).toMatchObject({ file: other, config: { team: { maxFixLoops: 5 } } });
  });

  it('stops the team command with exit 2 naming the file and field', async () => {
    const project = makeProject();
    const file = project.write('.team/config.json', JSON.stringify({ team: { maxFixLoops: -1 } }));
    const result = await project.team('1:executor', 'a task the config stops');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(`team: config ${file} is invalid:\n✖ Too small: expected number to be >=0\n  → at team.maxFixLoops\n`);
  });

  it('lets the read-only commands follow the runs through a config typo, as a warning', async () => {
    const project = makeProject();
    const runId = await project.startRun();
    const file = project.write('.team/config.json', JSON.stringify({ team: { maxFixLoop: 3 } }));
    for (const command of [['status'], ['list'], ['wait', '--timeout', '1'], ['report', '--out', join(project.dir, 'r.html')]]) {
      const result = await project.team(...command);
      expect(result.stderr, command[0]).toContain(`team: warning: config ${file} is invalid:\n✖ Unrecognized key: "maxFixLoop" (did you mean "maxFixLoops"?)`);
      expect(result.exitCode, command[0]).not.toBe(2);
    }
    expect((await project.team('status')).stdout).toContain(`run ${runId}`);
  });

  it('stops the team command with exit 2 for a --config file that does not exist', async () => {
    const project = makeProject();
    const result = await project.team('status', '--config', 'missing.json');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(`team: config ${join(project.dir, 'missing.json')}: no such file (from --config)\n`);
  });
});

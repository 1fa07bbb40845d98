import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claude } from '../../../workers/adapters/claude.js';
import { codex } from '../../../workers/adapters/codex.js';
import { gemini } from '../../../workers/adapters/gemini.js';
import { opencode } from '../../../workers/adapters/opencode.js';
import { hasTeamTools, TEAM_TOOL_NAMES } from '../../../workers/adapters/team-tools.js';
import { teamServerFor } from '../../../src/attempt/prepare/team-server.js';
import { getAdapter } from '../../../workers/adapters/index.js';
import { sim } from '../../../workers/sim/adapter.js';
import type { AdapterInput, AgentAdapter, AgentConfig } from '../../../workers/types.js';
import { makeInput } from './fixtures.js';

const SERVER = { command: '/usr/bin/node', args: ['/opt/teamline/dist/src/cli.js', 'mcp', '--attempt-dir', '/p/.team/runs/r1/attempts/t1/a1'] };
const folders: string[] = [];
afterAll(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function withServer(agent: AgentConfig, extra: Partial<AdapterInput> = {}): AdapterInput {
  return { ...makeInput(agent), teamServer: SERVER, ...extra };
}

describe('team tools', () => {
  it('are on by default for claude, codex, gemini and opencode, off when the agent says so, and off for the other adapters unless asked', () => {
    const tools = (agent: AgentConfig) => hasTeamTools(agent, getAdapter(agent.adapter, { sim })!);
    for (const adapter of ['claude', 'codex', 'gemini', 'opencode'] as const) {
      expect(tools({ adapter })).toBe(true);
      expect(tools({ adapter, teamTools: false })).toBe(false);
    }
    expect(tools({ adapter: 'aider' })).toBe(false);
    expect(tools({ adapter: 'command', command: 'x' })).toBe(false);
    expect(tools({ adapter: 'sim' })).toBe(false);
    expect(tools({ adapter: 'sim', teamTools: true })).toBe(true);
  });

  it('start the server as this node running this installation\'s cli.js, the attempt folder in the arguments', () => {
    const server = teamServerFor({ adapter: 'codex' }, codex, '/p/.team/runs/r1/attempts/t1/a1');
    expect(server?.command).toBe(process.execPath);
    expect(server?.args.slice(1)).toEqual(['mcp', '--attempt-dir', '/p/.team/runs/r1/attempts/t1/a1']);
    expect(server?.args[0]).toMatch(/\/src\/cli\.js$/);
    expect(teamServerFor({ adapter: 'codex', teamTools: false }, codex, '/p')).toBeUndefined();
  });

  it('leave every adapter\'s command line as it is without the server', () => {
    for (const adapter of [claude, codex, opencode] as AgentAdapter[]) {
      const agent = { adapter: adapter.name } as AgentConfig;
      expect(adapter.build({ ...makeInput(agent), teamServer: undefined })).toEqual(adapter.build(makeInput(agent)));
      expect(JSON.stringify(adapter.build(makeInput(agent)))).not.toMatch(/mcp|team_/);
    }
    expect(JSON.stringify(gemini.build(makeInput({ adapter: 'gemini' })))).not.toMatch(/mcp|team_|policy|GEMINI_CLI_HOME/);
  });

  it('give claude the server as its only MCP server, allow each tool by name (after Bash at the run level) and wait for it before the first turn', () => {
    const { args, env } = claude.build(withServer({ adapter: 'claude' }));
    expect(env).toEqual({ MCP_CONNECTION_NONBLOCKING: '0', MCP_CONNECT_TIMEOUT_MS: '30000' });
    expect(claude.build(withServer({ adapter: 'claude', env: { MCP_CONNECT_TIMEOUT_MS: '9000' } })).env).toEqual({ MCP_CONNECTION_NONBLOCKING: '0', MCP_CONNECT_TIMEOUT_MS: '9000' });
    const config = JSON.parse(args[args.indexOf('--mcp-config') + 1]!) as unknown;
    expect(config).toEqual({ mcpServers: { team: { type: 'stdio', command: SERVER.command, args: SERVER.args } } });
    expect(args[args.indexOf('--mcp-config') + 2]).toBe('--strict-mcp-config');
    const names = TEAM_TOOL_NAMES.map((name) => `mcp__team__${name}`);
    expect(args.slice(-11)).toEqual(['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash', ...names]);
    const read = claude.build(withServer({ adapter: 'claude' }, { permission: 'read' })).args;
    expect(read.slice(-10)).toEqual(['--permission-mode', 'dontAsk', '--allowedTools', ...names]);
    const own = claude.build(withServer({ adapter: 'claude', permissionMode: 'plan' })).args;
    expect(own.slice(-10)).toEqual(['--permission-mode', 'plan', '--allowedTools', ...names]);
  });

  it('give codex the server through config overrides, its tools approved (codex exec never asks), and wait for it before the first turn', () => {
    const { args } = codex.build(withServer({ adapter: 'codex' }));
    expect(args.slice(-9)).toEqual([
      '-c', `mcp_servers.team.command=${JSON.stringify(SERVER.command)}`,
      '-c', `mcp_servers.team.args=${JSON.stringify(SERVER.args)}`,
      '-c', 'mcp_servers.team.default_tools_approval_mode="approve"',
      '-c', 'mcp_optional_startup_grace_ms=30000',
      '-',
    ]);
  });

  it('give opencode the server as a local MCP server of the config it merges from OPENCODE_CONFIG_CONTENT', () => {
    const { env } = opencode.build(withServer({ adapter: 'opencode' }));
    expect(JSON.parse(env!.OPENCODE_CONFIG_CONTENT!)).toEqual({ mcp: { team: { type: 'local', command: [SERVER.command, ...SERVER.args], enabled: true, timeout: 60_000 } } });
    expect(env!.OPENCODE_PERMISSION).toBeDefined();
  });

  it('give gemini a home of the attempt\'s: the user\'s settings (comments and all) plus the trusted server, the rest of .gemini linked back, and a policy allowing the tools', () => {
    const root = mkdtempSync(join(tmpdir(), 'teamline-gemini-home-'));
    folders.push(root);
    const user = join(root, 'user');
    mkdirSync(join(user, '.gemini/policies'), { recursive: true });
    writeFileSync(join(user, '.gemini/settings.json'), '{\n  // the user\'s own\n  "security": {"auth": {"selectedType": "gemini-api-key"}},\n  "mcpServers": {"docs": {"command": "docs-mcp", "url": "http://x//y"}}\n}\n');
    writeFileSync(join(user, '.gemini/oauth_creds.json'), '{}');
    const attemptDir = join(root, 'attempts/t1/a1');
    mkdirSync(attemptDir, { recursive: true });
    const input = { ...makeInput({ adapter: 'gemini', env: { HOME: user } }), resultFile: join(attemptDir, 'result.json'), promptFile: join(attemptDir, 'prompt.md'), teamServer: SERVER };
    const command = gemini.build(input);
    const home = join(attemptDir, 'gemini-home');
    expect(command.env).toEqual({ GEMINI_CLI_NO_RELAUNCH: 'true', HOME: user, GEMINI_CLI_HOME: home });
    const policy = join(attemptDir, 'gemini-policy.toml');
    expect(command.args.slice(-4)).toEqual(['--allowed-mcp-server-names', 'team', '--policy', policy]);
    const settings = JSON.parse(readFileSync(join(home, '.gemini/settings.json'), 'utf8')) as Record<string, unknown>;
    expect(settings.security).toEqual({ auth: { selectedType: 'gemini-api-key' } });
    expect(settings.mcpServers).toEqual({
      docs: { command: 'docs-mcp', url: 'http://x//y' },
      team: { command: SERVER.command, args: SERVER.args, trust: true, includeTools: [...TEAM_TOOL_NAMES] },
    });
    expect(readlinkSync(join(home, '.gemini/oauth_creds.json'))).toBe(join(user, '.gemini/oauth_creds.json'));
    expect(lstatSync(join(home, '.gemini/policies')).isSymbolicLink()).toBe(true);
    expect(readFileSync(policy, 'utf8')).toContain(`toolName = [${TEAM_TOOL_NAMES.map((name) => `"mcp_team_${name}"`).join(', ')}]`);
    // Built again (a retried build), the home is made afresh.
    expect(gemini.build(input).env).toEqual(command.env);
  });
});

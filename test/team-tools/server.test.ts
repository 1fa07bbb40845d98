// `team mcp` on its own: the built server spawned by the MCP SDK's client (with the SDK's filtered
// environment), against a fake writer: the test itself reads the calls folder and writes answers,
// standing in for the run's orchestrator so that the server's side alone is checked (what it leaves,
// what it returns, its bound). The writer's side is tested with the real orchestrator in
// team-tools*.test.ts.
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readOpenCalls, writeAnswer } from '../../src/team-tools/calls.js';
import { writeToolsContext } from '../../src/team-tools/context.js';
import { CLI, runTeam } from '../helpers/team.js';

type CallResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

describe('team mcp', () => {
  let root: string;
  let dir: string;
  let client: Client;
  let answering: NodeJS.Timeout | undefined;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'teamline-mcp-'));
    dir = join(root, '.team', 'runs', 'r1', 'attempts', 't1', 'a1');
    mkdirSync(dir, { recursive: true });
    writeToolsContext(dir, { run_id: 'r1', task_id: 't1', attempt: 1, worker: 'worker-2', stage: 'team-exec', answer_ms: 1_000 });
    client = new Client({ name: 'test', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--attempt-dir', dir], stderr: 'pipe' }));
  });
  afterEach(async () => {
    clearInterval(answering);
    await client.close();
    rmSync(root, { recursive: true, force: true });
  });

  // The fake writer: answers each call with what `answer` makes of it.
  const answerWith = (answer: (tool: string, args: unknown) => { ok: boolean; answer: unknown }) => {
    answering = setInterval(() => {
      for (const call of readOpenCalls(dir).calls) writeAnswer(dir, call.key, answer(call.tool, call.args));
    }, 20);
  };

  it('offers the seven team tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['team_done', 'team_fail', 'team_inbox', 'team_message', 'team_progress', 'team_reserve', 'team_tasks']);
    expect(tools.find((t) => t.name === 'team_reserve')!.inputSchema).toMatchObject({ properties: { files: { type: 'array' } }, required: ['files'] });
  });

  it('leaves each call in the calls folder and returns the writer’s answer', async () => {
    const seen: Array<[string, unknown]> = [];
    answerWith((tool, args) => (seen.push([tool, args]), tool === 'team_message' ? { ok: false, answer: { error: 'to: nobody is not known' } } : { ok: true, answer: { noted: true, unread: [{ from: 'human', text: 'hi' }] } }));
    const progress = (await client.callTool({ name: 'team_progress', arguments: { text: 'halfway' } })) as CallResult;
    expect(progress.isError).toBeUndefined();
    expect(JSON.parse(progress.content[0]!.text)).toEqual({ noted: true, unread: [{ from: 'human', text: 'hi' }] });
    const message = (await client.callTool({ name: 'team_message', arguments: { to: 'nobody', text: 'x' } })) as CallResult;
    expect(message.isError).toBe(true);
    expect(JSON.parse(message.content[0]!.text)).toEqual({ error: 'to: nobody is not known' });
    expect(seen).toEqual([['team_progress', { text: 'halfway' }], ['team_message', { to: 'nobody', text: 'x' }]]);
    expect(readdirSync(join(dir, 'calls')).filter((n) => n.endsWith('.call.json'))).toHaveLength(2);
  });

  it('says so when no writer answers within the bound, and keeps the call', async () => {
    const started = Date.now();
    const result = (await client.callTool({ name: 'team_tasks', arguments: {} })) as CallResult;
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text).error).toMatch(/^no answer from the run's writer within 1s: the call \(c-[0-9a-f]{16}\) is kept and recorded when the run resumes/);
    expect(readOpenCalls(dir).calls.map((c) => c.tool)).toEqual(['team_tasks']);
  });

  it('refuses arguments outside the tool’s schema before leaving any call', async () => {
    const result = (await client.callTool({ name: 'team_reserve', arguments: { files: [] } })) as CallResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/files/);
    expect(readOpenCalls(dir).calls).toEqual([]);
  });
});

describe('team mcp --attempt-dir', () => {
  it('refuses a folder that is not the attempt its file names, with exit 2', async () => {
    const root = mkdtempSync(join(tmpdir(), 'teamline-mcp-'));
    try {
      const dir = join(root, 'attempts', 't1', 'a2');
      mkdirSync(dir, { recursive: true });
      writeToolsContext(dir, { run_id: 'r1', task_id: 't1', attempt: 1, worker: 'worker-1', stage: 'team-exec', answer_ms: 1_000 });
      const result = await runTeam(['mcp', '--attempt-dir', dir], { cwd: root });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`--attempt-dir ${dir}: the folder is not that of t1 a1`);
      const none = await runTeam(['mcp', '--attempt-dir', root], { cwd: root });
      expect(none.exitCode).toBe(2);
      expect(none.stderr).toContain(`--attempt-dir ${root}: no attempt's team-tools.json there`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

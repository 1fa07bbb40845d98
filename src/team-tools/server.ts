// `team mcp`: the team tools over MCP (stdio) for one attempt. Each call is left in the attempt's
// calls folder; whoever runs the attempt records it and writes the answer, which the call returns.
import { randomBytes } from 'node:crypto';
import { mkdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { nowIso } from '../log/time.js';
import { answerName, CALLS_DIR, readAnswer, writeCall, type CallAnswer } from './calls.js';
import { readToolsContext, type ToolsContext } from './context.js';
import { TOOL_NAMES, TOOLS, type ToolName } from './tools.js';

// How often an answer is looked for besides the folder's change notices (which can be missed).
const POLL_MS = 100;

// Serves the attempt's tools on stdin/stdout until the client goes.
export async function serveAttempt(attemptDir: string, version: string): Promise<void> {
  const context = readToolsContext(attemptDir);
  mkdirSync(join(attemptDir, CALLS_DIR), { recursive: true });
  const server = new McpServer({ name: 'team', version });
  for (const name of TOOL_NAMES) {
    server.registerTool(name, { description: TOOLS[name].description, inputSchema: TOOLS[name].args }, async (args: Record<string, unknown>) => toContent(await callTool(attemptDir, context, name, args)));
  }
  const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
  await server.connect(new StdioServerTransport());
  await closed;
}

// Leaves the call and waits for its answer, at most the attempt's bound.
export async function callTool(attemptDir: string, context: Pick<ToolsContext, 'answer_ms'>, tool: ToolName, args: Record<string, unknown>): Promise<CallAnswer> {
  const key = `c-${randomBytes(8).toString('hex')}`;
  writeCall(attemptDir, { key, tool, args, at: nowIso() });
  const answer = await waitForAnswer(attemptDir, key, context.answer_ms);
  return answer ?? { ok: false, answer: { error: `no answer from the run's writer within ${Math.round(context.answer_ms / 1000)}s: the call (${key}) is kept and recorded when the run resumes; go on with your task` } };
}

function waitForAnswer(attemptDir: string, key: string, boundMs: number): Promise<CallAnswer | undefined> {
  return new Promise((resolve) => {
    let watcher: FSWatcher | undefined;
    const finish = (answer: CallAnswer | undefined) => {
      clearInterval(poll);
      clearTimeout(bound);
      watcher?.close();
      resolve(answer);
    };
    const look = () => {
      const answer = readAnswer(attemptDir, key);
      if (answer) finish(answer);
    };
    const poll = setInterval(look, POLL_MS);
    const bound = setTimeout(() => finish(undefined), boundMs);
    try {
      // Only the notice of this answer's file in place: the folder changes with every call's files.
      const name = answerName(key);
      watcher = watch(join(attemptDir, CALLS_DIR), (_type, changed) => (changed === null || changed === name) && look());
      watcher.on('error', () => undefined);
    } catch {
      // The poll is there.
    }
    look();
  });
}

function toContent(answer: CallAnswer) {
  return { content: [{ type: 'text' as const, text: JSON.stringify(answer.answer) }], ...(answer.ok ? {} : { isError: true }) };
}

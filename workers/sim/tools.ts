// The sim as an MCP client of the team tools, as a model behind a real CLI would call them: it starts
// `team mcp --attempt-dir <its attempt folder>` (the built CLI, with the MCP SDK's default, filtered
// environment: no TEAM_* variable reaches it) and makes the scenario's calls in order, printing each
// answer on stdout (`sim: tool <name> <answer>`).
import { dirname } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TEAM_BIN } from '../../src/sys/team-bin.js';
import type { ToolStep } from './scenario.js';
import type { SimEnv } from './sim-env.js';


// Makes the calls; true when one of them ended the task (team_done, team_fail): no result file then.
export async function callTools(env: SimEnv, steps: ToolStep[]): Promise<boolean> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [TEAM_BIN, 'mcp', '--attempt-dir', dirname(env.resultFile)], cwd: env.projectDir, stderr: 'inherit' });
  const client = new Client({ name: 'sim', version: '1' });
  await client.connect(transport);
  let finished = false;
  // What any answer so far carried: a message delivered with an earlier call counts as arrived.
  const seen = { unread: false, shutdown: false };
  try {
    for (const step of steps) {
      for (let round = 0; round < (step.repeat ?? 1); round++) {
        if (round > 0 || step.everyMs) await sleep(step.everyMs ?? 0);
        const started = Date.now();
        for (;;) {
          const answer = await call(client, step);
          seen.unread ||= answer.unread !== undefined;
          seen.shutdown ||= answer.shutdown !== undefined;
          const met = !step.until || seen[step.until];
          if (met || Date.now() - started > (step.maxMs ?? 30_000)) break;
          await sleep(step.everyMs ?? 100);
        }
      }
      if (step.call === 'team_done' || step.call === 'team_fail') finished = true;
    }
  } finally {
    await client.close();
  }
  return finished;
}

async function call(client: Client, step: ToolStep): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name: step.call, arguments: step.args ?? {} }, undefined, { timeout: 120_000 })) as { content?: Array<{ type: string; text?: string }>; isError?: boolean };
  const text = result.content?.find((c) => c.type === 'text')?.text ?? '{}';
  if (!step.quiet) console.log(`sim: tool ${step.call}${result.isError ? ' (error)' : ''} ${text}`);
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

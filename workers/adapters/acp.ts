// Any Agent Client Protocol agent as a worker (`"adapter": "acp"`, `command` and `args` starting the
// agent in ACP mode: `gemini --acp`, `opencode acp`, `claude-agent-acp`, …). The attempt's process is
// teamline's ACP bridge (workers/acp/bridge.ts), the agent its child: this file builds the bridge's
// command and reads what it printed, one JSON object a line.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bridgeArgs } from '../acp/spec.js';
import { bridgeLines } from '../acp/lines.js';
import { readVersion } from '../../src/sys/version.js';
import type { AdapterInput, AgentAdapter, AgentCommand, AgentReport, OutputSignals, Tokens } from '../types.js';
import { classifyFailure, type FailureRule } from './failures.js';
import { spendOf } from './spend.js';

// The compiled bridge's path; from the TypeScript source (tests), its built copy in dist.
export function resolveBridgePath(moduleUrl: string = import.meta.url): string {
  const here = fileURLToPath(moduleUrl);
  if (here.endsWith('.ts')) return resolve(dirname(here), '../../dist/workers/acp/bridge.js');
  return join(dirname(here), '../acp/bridge.js');
}

// What an ACP agent's errors say that no retry fixes (ACP's auth_required is -32000).
const RULES: FailureRule[] = [
  [/auth_required|authentication required|-32000|not (logged|signed) in/i, 'not-logged-in'],
  [/API key|Unauthorized|\b401\b|\b403\b/i, 'bad-key'],
  [/quota|billing|credit/i, 'quota'],
  [/model.*not found|unknown model/i, 'unknown-model'],
];

function buildAcp(input: AdapterInput): AgentCommand {
  const { agent } = input;
  // The config's schema refuses an acp agent with no command: reaching here without one is a bug.
  if (agent.command === undefined) throw new Error('acp adapter: agent.command is required');
  const spec = {
    command: agent.command,
    args: agent.args ?? [],
    cwd: input.projectDir,
    promptFile: input.promptFile,
    resultFile: input.resultFile,
    stage: input.stage,
    permission: input.permission,
    ...(input.teamServer && { teamServer: input.teamServer }),
    ...(agent.authMethod !== undefined && { authMethod: agent.authMethod }),
    version: readVersion(),
  };
  return { file: process.execPath, args: [resolveBridgePath(), ...bridgeArgs(spec)], ...(agent.env !== undefined && { env: { ...agent.env } }) };
}

// The session's end as the bridge told it: ok only for a turn that ended as the agent's own (end_turn).
function parseAcp(output: string): AgentReport {
  const lines = bridgeLines(output);
  let text = '';
  let sessionId: string | undefined;
  let tokens: Tokens | undefined;
  let costUsd: number | undefined;
  let stopReason: string | undefined;
  let error: string | undefined;
  const denials: string[] = [];
  for (const line of lines) {
    if (line.acp === 'session') sessionId = line.sessionId;
    if (line.acp === 'message') text += line.text;
    if (line.acp === 'usage' && line.cost?.currency === 'USD') costUsd = line.cost.amount;
    if (line.acp === 'permission' && line.answer === 'reject') denials.push(`${line.tool} (${line.why})`);
    if (line.acp === 'end') {
      stopReason = line.stopReason;
      tokens = line.tokens;
    }
    if (line.acp === 'error') error ??= line.message;
  }
  if (lines.length === 0) return { ok: false, noRecord: true };
  const failure = error === undefined ? undefined : classifyFailure('acp', error, RULES);
  return {
    ok: error === undefined && stopReason === 'end_turn',
    finalText: text,
    ...(sessionId !== undefined && { sessionId }),
    ...(tokens && { tokens }),
    ...(costUsd !== undefined && { costUsd }),
    ...(error !== undefined ? { error } : stopReason !== undefined && stopReason !== 'end_turn' ? { error: `the ACP agent ended its turn: ${stopReason}` } : stopReason === undefined ? { error: 'the ACP session ended before its turn did' } : {}),
    ...(failure && { failure }),
    ...(denials.length > 0 && { denials }),
  };
}

// Any line of the session's is progress; an error line a failure no retry fixes when its words say so.
function scanAcp(lines: string[]): OutputSignals {
  const read = bridgeLines(lines.join('\n'));
  const error = read.find((l) => l.acp === 'error');
  const failure = error?.acp === 'error' ? classifyFailure('acp', error.message, RULES) : undefined;
  return { progress: read.some((l) => l.acp !== 'stopping' && l.acp !== 'error'), ...(failure && { failure }) };
}

export const acp: AgentAdapter = {
  name: 'acp',
  // The team tools reach the agent as session/new's MCP server; the agent is named by its own config entry.
  facts: { byName: false, teamTools: true },
  build: buildAcp,
  parse: parseAcp,
  scan: scanAcp,
  peekSessionId: (partial) => {
    const session = bridgeLines(partial).find((l) => l.acp === 'session');
    return session?.acp === 'session' ? session.sessionId : undefined;
  },
  spendSoFar: (partial) => spendOf(parseAcp(partial)),
};

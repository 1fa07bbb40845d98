// Any Agent Client Protocol agent as a worker (`"adapter": "acp"`, `command` and `args` starting the
// agent in ACP mode: `gemini --acp`, `opencode acp`, `claude-agent-acp`, …). The attempt's process is
// teamline's ACP bridge (workers/acp/bridge.ts), the agent its child: this file builds the bridge's
// command and reads what it printed, one JSON object a line.
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bridgeArgs } from '../acp/spec.js';
import { bridgeLines } from '../acp/lines.js';
import { readVersion } from '../../src/sys/version.js';
import type { AdapterInput, AgentAdapter, AgentCommand, AgentReport, OutputSignals, Tokens } from '../types.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { classifyFailure, type FailureRule } from './failures.js';
import { gemini, GEMINI_START_ENV } from './gemini.js';
import { opencode } from './opencode.js';
import { spendOf } from './spend.js';

// The compiled bridge's path; from the TypeScript source (tests), its built copy in dist.
export function resolveBridgePath(moduleUrl: string = import.meta.url): string {
  const here = fileURLToPath(moduleUrl);
  if (here.endsWith('.ts')) return resolve(dirname(here), '../../dist/workers/acp/bridge.js');
  return join(dirname(here), '../acp/bridge.js');
}

// The variable that names the ACP agent's command in the worker's environment: the fence leaves the
// state of the CLI it is (gemini's ~/.gemini, …) writable, and no other's.
const ACP_AGENT_VAR = 'TEAMLINE_ACP_AGENT';

// The catalogue's CLIs an ACP agent may be, by its command's name: the CLI itself in ACP mode
// (`gemini --acp`, `opencode acp`) or its ACP adapter (`claude-agent-acp`, `claude-code-acp`, `codex-acp`).
const KNOWN: Record<string, AgentAdapter> = { claude, codex, gemini, opencode };
export function acpAgentCli(command: string | undefined): AgentAdapter | undefined {
  if (command === undefined) return undefined;
  const name = basename(command).replace(/\.(c|m)?js$/, '');
  return KNOWN[name] ?? KNOWN[name.split('-')[0]!];
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
  const cli = acpAgentCli(agent.command);
  const attemptDir = dirname(input.resultFile);
  const spec = {
    command: agent.command,
    // gemini's ACP mode takes no session/new additionalDirectories: its flag lets it write the result file.
    args: [...(agent.args ?? []), ...(cli === gemini ? ['--include-directories', attemptDir] : [])],
    // gemini 0.61 reads a client's "not found" answer as a failed read (its write tool then fails on
    // every new file): it is offered no file methods and uses its own, inside the fence.
    files: cli !== gemini,
    directories: [attemptDir],
    promptFile: input.promptFile,
    resultFile: input.resultFile,
    stage: input.stage,
    permission: input.permission,
    ...(input.teamServer && { teamServer: input.teamServer }),
    ...(agent.authMethod !== undefined && { authMethod: agent.authMethod }),
    version: readVersion(),
  };
  return { file: process.execPath, args: [resolveBridgePath(), ...bridgeArgs(spec)], env: { ...(cli === gemini && GEMINI_START_ENV), ...agent.env, [ACP_AGENT_VAR]: agent.command } };
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
  facts: { byName: false, teamTools: true, state: (env, home) => acpAgentCli(env[ACP_AGENT_VAR])?.facts?.state?.(env, home) ?? { dirs: [] } },
  build: buildAcp,
  parse: parseAcp,
  scan: scanAcp,
  peekSessionId: (partial) => {
    const session = bridgeLines(partial).find((l) => l.acp === 'session');
    return session?.acp === 'session' ? session.sessionId : undefined;
  },
  spendSoFar: (partial) => spendOf(parseAcp(partial)),
};

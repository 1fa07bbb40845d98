// OpenAI Codex: `codex exec --json -`, the prompt read from stdin (the `-` argument).
// Output: JSONL thread events (thread.started, item.completed, turn.completed / turn.failed, error).
import type { AdapterInput, AgentAdapter, AgentCommand, AgentReport } from '../types.js';
import { makeAgentCommand, makeReport } from './command-line.js';
import { peekJsonString, readJsonObjects, toCount, toObject, toText, type JsonObject } from './json-objects.js';

// `codex exec` defaults to a read-only sandbox; a worker must edit the project, so the default
// is workspace-write (edits and commands inside the project, no network). `permissionMode`
// names another sandbox (read-only, danger-full-access), or `yolo` for no sandbox at all.
const DEFAULT_SANDBOX = 'workspace-write';

// The permission mode that means "no sandbox, no approvals" (for already-isolated machines).
const BYPASS_MODE = 'yolo';

// Builds the exec call. Codex has no turn or budget flags; --skip-git-repo-check lets a run
// work in a project that is not (yet) a git repository.
function buildCodex(input: AdapterInput): AgentCommand {
  const { agent } = input;
  const args = ['exec', '--json', '--skip-git-repo-check'];
  if (agent.model !== undefined) args.push('--model', agent.model);
  if (agent.permissionMode === BYPASS_MODE) args.push('--dangerously-bypass-approvals-and-sandbox');
  else args.push('--sandbox', agent.permissionMode ?? DEFAULT_SANDBOX);
  args.push('-');
  return makeAgentCommand(agent, 'codex', args, input.promptFile);
}

// ok only when the last terminal event is turn.completed (an `error` event may be a retry that
// a later turn.completed supersedes); tokens are summed over turn.completed usage.
function parseCodex(output: string): AgentReport {
  let sessionId: string | undefined;
  let finalText: string | undefined;
  let terminal: JsonObject | undefined;
  let tokens: AgentReport['tokens'];
  for (const event of readJsonObjects(output)) {
    if (event.type === 'thread.started') sessionId = toText(event.thread_id) ?? sessionId;
    const item = toObject(event.item);
    if (event.type === 'item.completed' && item?.type === 'agent_message') finalText = toText(item.text);
    if (event.type === 'turn.completed') {
      const usage = toObject(event.usage);
      tokens = {
        input: (tokens?.input ?? 0) + toCount(usage?.input_tokens),
        output: (tokens?.output ?? 0) + toCount(usage?.output_tokens),
      };
    }
    if (event.type === 'turn.completed' || event.type === 'turn.failed' || event.type === 'error') terminal = event;
  }
  const ok = terminal?.type === 'turn.completed';
  return makeReport({ ok, finalText, sessionId, tokens, error: ok ? undefined : describeCodexError(terminal) });
}

// The message of a turn.failed or error event.
function describeCodexError(event: JsonObject | undefined): string {
  if (!event) return 'codex printed no turn.completed event';
  const message = event.type === 'turn.failed' ? toText(toObject(event.error)?.message) : toText(event.message);
  return message ?? String(event.type);
}

// The codex adapter: an exec command line in, the JSONL thread events out.
export const codex: AgentAdapter = {
  name: 'codex',
  build: buildCodex,
  parse: parseCodex,
  peekSessionId: (partialOutput) => peekJsonString(partialOutput, 'thread_id'),
};

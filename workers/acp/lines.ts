// The ACP bridge's output: one JSON object a line, `acp` saying what it is. Written by the bridge,
// read by the acp adapter (workers/adapters/acp.ts).
import type { PermissionLevel } from '../types.js';

export type BridgeLine =
  | { acp: 'session'; sessionId: string; agent: string }
  | { acp: 'message'; text: string }
  | { acp: 'thought' }
  | { acp: 'tool'; id: string; title?: string; kind?: string; status?: string; error?: string }
  | { acp: 'plan'; entries: Array<{ content: string; status: string }> }
  | { acp: 'usage'; used: number; size: number; cost?: { amount: number; currency: string } }
  | { acp: 'permission'; tool: string; kind: string; answer: 'allow' | 'reject'; why: string }
  | { acp: 'stopping'; signal: string }
  /** Messages the agent had not read (team say) sent as a prompt turn of their own. */
  | { acp: 'messages'; count: number }
  /** The session moved from the agent's read-only mode to its working one (the stage may edit or run). */
  | { acp: 'mode'; from: string; to: string; why: string }
  | { acp: 'end'; stopReason: string; tokens?: { input: number; output: number; cached?: number } }
  | { acp: 'error'; message: string };

// The tool kinds (ACP's ToolKind) each permission level allows: reading and thinking always; editing
// files from edit up; running commands (and anything the agent does not name) only at run.
const READS = new Set(['read', 'search', 'think', 'fetch', 'switch_mode']);
const EDITS = new Set(['edit', 'delete', 'move']);

export function allowsKind(level: PermissionLevel, kind: string): boolean {
  if (READS.has(kind)) return true;
  if (EDITS.has(kind)) return level !== 'read';
  return level === 'run';
}

// The bridge's lines in some output (others, such as the agent's stderr, are skipped).
export function bridgeLines(output: string): BridgeLine[] {
  const lines: BridgeLine[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{"acp":')) continue;
    try {
      lines.push(JSON.parse(line) as BridgeLine);
    } catch {
      // A line cut by the output's head-and-tail reading.
    }
  }
  return lines;
}

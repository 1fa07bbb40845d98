// What claude's print mode refused: the result record's `permission_denials`, each with the words
// of its tool result ("Claude requested permissions to write to <path>, but you haven't granted it yet.").
import type { AgentFailure } from '../types.js';
import { describeToolCall, refusedPermission } from './failures.js';
import { toObject, toText, type JsonObject } from './json-objects.js';

// "Bash: npm test" for each tool call the permission mode refused.
export function readDenials(result: JsonObject): string[] {
  return denialsOf(result).flatMap((denial) => {
    const tool = toText(denial.tool_name);
    if (!tool) return [];
    const input = toObject(denial.tool_input);
    const detail = toText(input?.command) ?? toText(input?.file_path) ?? toText(input?.path);
    return [detail === undefined ? tool : `${tool}: ${detail}`];
  });
}

// The first refused tool call as a failure no retry fixes, in the words claude answered the model with.
export function readClaudeRefusal(records: JsonObject[], result: JsonObject): AgentFailure | undefined {
  const denial = denialsOf(result).find((entry) => toText(entry.tool_name) !== undefined);
  if (!denial) return undefined;
  const input = toObject(denial.tool_input);
  const what = describeToolCall(toText(denial.tool_name)!, toText(input?.file_path) ?? toText(input?.path), toText(input?.command));
  return refusedPermission('claude', what, toolResultText(records, toText(denial.tool_use_id)) ?? 'permission denied');
}

function denialsOf(result: JsonObject): JsonObject[] {
  return objectsOf(result.permission_denials);
}

// The objects of a JSON array ([] for anything else).
function objectsOf(value: unknown): JsonObject[] {
  if (!Array.isArray(value)) return [];
  return value.map((entry: unknown) => toObject(entry)).filter((entry): entry is JsonObject => entry !== undefined);
}

// The text of the tool result that answered the tool call `id` (a string or text blocks).
function toolResultText(records: JsonObject[], id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  for (const record of records) {
    if (record.type !== 'user') continue;
    for (const block of objectsOf(toObject(record.message)?.content)) {
      if (block.type !== 'tool_result' || block.tool_use_id !== id) continue;
      if (typeof block.content === 'string') return block.content;
      return objectsOf(block.content).map((part) => toText(part.text) ?? '').join(' ');
    }
  }
  return undefined;
}

// The team tools: each one's name, what it is for (the agent reads it) and its arguments' schema,
// declared once for the server (server.ts) and for the writer that checks each call (answer.ts).
import { z } from 'zod';

const resultFields = {
  summary: z.string().describe('what was done, in a few lines'),
  artifacts: z.array(z.string()).optional().describe('files made or changed, relative to the project'),
  evidence: z.string().optional().describe('what shows it is done: tests run, their output'),
  next: z.string().optional().describe('what should happen next'),
};

export const TOOLS = {
  team_tasks: { description: 'The team\'s task list: id, title, status, owner (worker), blockedBy and (where the plan named them) the files of every task of the run.', args: {} },
  team_message: {
    description: 'Send one message: to "lead" (the person running the team), to a teammate ("worker-2"), or to a task id (read by whoever works on it, and by its next attempt). Keep it short. Set question when you need an answer.',
    args: { to: z.string().min(1).max(128), text: z.string().min(1), question: z.boolean().optional() },
  },
  team_inbox: { description: 'The messages for you since your last look.', args: {} },
  team_progress: { description: 'A short note of what you are doing now. Call it every few minutes on long work: it shows you are working, not wedged.', args: { text: z.string().min(1) } },
  team_reserve: {
    description: 'Reserve the files you are about to change (paths relative to the project). The answer says which are already reserved, and by whom: coordinate with them before changing those. Until your attempt ends, no task that would change your reserved files starts.',
    args: { files: z.array(z.string().min(1)).min(1).max(64) },
  },
  team_done: {
    description: 'Finish your task with its result (instead of the result file). Stage fields (tasks, acceptance, verdict, defects, reasons) go in too when your prompt asks for them.',
    args: { ...resultFields, tasks: z.array(z.unknown()).optional(), needsPrd: z.boolean().optional(), acceptance: z.record(z.string(), z.array(z.string())).optional(), verdict: z.string().optional(), defects: z.array(z.unknown()).optional(), reasons: z.array(z.string()).optional() },
  },
  team_fail: { description: 'End your task as failed, saying why (in summary and evidence).', args: resultFields },
} as const;

export type ToolName = keyof typeof TOOLS;
export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];

// Each tool's arguments as one strict object, made at the tool's first call and kept: made anew at
// every call, zod built it and compiled its parser each time (about half a tool call's own time).
const ARGS_SCHEMAS = new Map<ToolName, z.ZodType<Record<string, unknown>>>();

// A tool's arguments, checked as the writer takes the call (the server's check is the agent's side).
export function parseToolArgs(tool: ToolName, args: unknown): { ok: true; args: Record<string, unknown> } | { ok: false; reason: string } {
  let schema = ARGS_SCHEMAS.get(tool);
  if (!schema) ARGS_SCHEMAS.set(tool, (schema = z.strictObject(TOOLS[tool].args) as z.ZodType<Record<string, unknown>>));
  const parsed = schema.safeParse(args);
  return parsed.success ? { ok: true, args: parsed.data } : { ok: false, reason: `${tool}: ${z.prettifyError(parsed.error)}` };
}

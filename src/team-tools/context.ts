// What `team mcp --attempt-dir DIR` learns of its attempt: the folder's place
// (…/attempts/<task>/a<n>) and the small file the runner writes there before the agent starts. No
// environment variable reaches it (some CLIs filter the env of their MCP servers), and no store URL.
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../sys/atomic.js';
import { readRegularFile } from '../sys/regular-file.js';
import { UsageError } from '../sys/errors.js';

// The file, in the attempt folder.
export const TOOLS_FILE = 'team-tools.json';

// How long a tool call waits for its answer by default before it says no writer answered.
export const ANSWER_MS = 30_000;

const contextSchema = z.strictObject({
  run_id: z.string().min(1),
  task_id: z.string().min(1),
  attempt: z.number().int().positive(),
  worker: z.string().min(1),
  stage: z.string().min(1),
  /** How long a call waits for its answer (team.toolAnswerMs is not a config value: tests shorten it here). */
  answer_ms: z.number().int().positive().max(600_000),
});
export type ToolsContext = z.infer<typeof contextSchema>;

// Written by whoever runs the attempt, before its agent starts.
export function writeToolsContext(attemptDir: string, context: ToolsContext): void {
  writeFileAtomic(attemptDir, TOOLS_FILE, JSON.stringify(context), { fsync: false });
}

// The attempt's context, checked against the folder's own place; a UsageError names what is wrong.
export function readToolsContext(attemptDir: string): ToolsContext {
  const reading = readRegularFile(join(attemptDir, TOOLS_FILE), 4_096);
  if (!reading.ok) throw new UsageError(`--attempt-dir ${attemptDir}: no attempt's ${TOOLS_FILE} there (${reading.reason})`);
  let parsed;
  try {
    parsed = contextSchema.safeParse(JSON.parse(reading.text));
  } catch {
    throw new UsageError(`--attempt-dir ${attemptDir}: ${TOOLS_FILE} is not JSON`);
  }
  if (!parsed.success) throw new UsageError(`--attempt-dir ${attemptDir}: ${TOOLS_FILE} is invalid: ${z.prettifyError(parsed.error)}`);
  const context = parsed.data;
  if (basename(attemptDir) !== `a${context.attempt}` || basename(dirname(attemptDir)) !== context.task_id) {
    throw new UsageError(`--attempt-dir ${attemptDir}: the folder is not that of ${context.task_id} a${context.attempt}`);
  }
  return context;
}

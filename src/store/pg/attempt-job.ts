// An attempt as a pg-boss job: what a worker on another machine needs to run it as the orchestrator
// would, and the job id derived from run + task + attempt, so an attempt is never enqueued twice.
import { v5 as uuidv5 } from 'uuid';
import { z } from 'zod';
import { once } from '../../sys/once.js';
import { agentSchema } from '../../../config/schema.js';
import { ID_PATTERN } from '../../log/guards.js';
import { PERMISSION_LEVELS, STAGES } from '../../../workers/types.js';

// The queue of attempts that need no label; an attempt that names one goes to `team-attempts.<label>`.
export const ATTEMPT_QUEUE = 'team-attempts';

// The namespace of attempt job ids (a fixed random UUID: ids are teamline's own).
const JOB_ID_NAMESPACE = '8a0f3c52-5b7e-4d0b-9a57-2f1c6e4b9d13';

const id = z.string().regex(ID_PATTERN);

// What the job carries. Paths are not in it: the worker makes the attempt folder under its own folder,
// writes the prompt there and builds the agent's command with the adapter, as the orchestrator does.
export const attemptJobSchema = once(() => z.strictObject({
  runId: id,
  taskId: id,
  attempt: z.number().int().positive(),
  worker: z.string().min(1),
  stage: z.enum(STAGES),
  role: z.string().min(1),
  /** The agent's name in the config, and its entry. */
  agentName: z.string().min(1),
  agent: agentSchema,
  permission: z.enum(PERMISSION_LEVELS),
  prompt: z.string(),
  /** TEAM_* and the agent's own; the worker sets TEAM_PROMPT_FILE, TEAM_RESULT_FILE and TEAM_PROJECT_DIR to its own paths. */
  env: z.record(z.string(), z.string()),
  /** team.fence of the run: the worker fences the agent where it can; `required` fails the attempt where it cannot. */
  fence: z.enum(['auto', 'required', 'off']).optional(),
  /** team.fenceWritable of the run: more places the fence leaves writable (~/ is the worker's home). */
  fenceWritable: z.array(z.string()).optional(),
  /** Only workers started with this label take the attempt. */
  label: id.optional(),
  /** The attempt's wall-clock cap (team.attemptTimeoutMs, or its stage's): the worker stops the agent past it. */
  capMs: z.number().int().positive().optional(),
  /** watchdog.reassignMs of the run: the worker stops an agent that shows no sign of life for this long. */
  silenceMs: z.number().int().positive().optional(),
  /** watchdog.statusCheckMs of the run: the worker reports an agent silent this long as stalled (once). */
  stallMs: z.number().int().positive().optional(),
  /**
   * The code through git: the worker fetches `base` from `remote` (its own clone's remote of that
   * name) and works in a worktree of it, on `branch` (exec, fix: continued from the remote's branch
   * when it exists, committed and pushed after) or detached (the other stages, which only read).
   * `prefix` is the project's folder inside the repository.
   */
  git: z
    .strictObject({
      remote: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/),
      base: z.string().min(1),
      branch: z.string().min(1).optional(),
      /** A conflict fix: the task branch whose merge waits in the worktree with its conflict markers. */
      merging: z.string().min(1).optional(),
      prefix: z.string(),
    })
    .optional(),
}));
export type AttemptJob = z.infer<ReturnType<typeof attemptJobSchema>>;

// The job id of an attempt: UUID v5 of `run_id/task_id/a<attempt>`.
export function attemptJobId(runId: string, taskId: string, attempt: number): string {
  return uuidv5(`${runId}/${taskId}/a${attempt}`, JOB_ID_NAMESPACE);
}

// The queue an attempt goes to.
export function attemptQueue(label?: string): string {
  return label === undefined ? ATTEMPT_QUEUE : `${ATTEMPT_QUEUE}.${label}`;
}

// The protocol's environment of an attempt (SPEC section 4) that does not depend on where it runs;
// the machine that runs it adds TEAM_PROMPT_FILE, TEAM_RESULT_FILE and TEAM_PROJECT_DIR, and the
// agent's own variables go on top of them all.
import type { AttemptInput } from '../../../machines/types.js';
import type { PermissionLevel } from '../../../workers/types.js';

// TEAM_RUN_ID … TEAM_WORKER and TEAM_PERMISSION.
export function attemptEnv(runId: string, input: AttemptInput, permission: PermissionLevel): Record<string, string> {
  return {
    TEAM_RUN_ID: runId,
    TEAM_TASK_ID: input.taskId,
    TEAM_ATTEMPT: String(input.attempt),
    TEAM_STAGE: input.stage,
    TEAM_ROLE: input.role,
    TEAM_WORKER: input.worker,
    TEAM_PERMISSION: permission,
  };
}

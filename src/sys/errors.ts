// Exit codes belong to error classes; the CLI only maps them (SPEC section 2).

export const EXIT = {
  completed: 0,
  failed: 1,
  usage: 2,
  cancelled: 3,
  decision: 4,
  /** `team wait --timeout`: the run is still going when the time is up. */
  waitTimeout: 5,
  /** `team wait`: the run has not ended and no orchestrator drives it (`team resume` continues it). */
  noOrchestrator: 6,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

// An error a user can act on: printed without a stack, exits with its code.
export class TeamError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

// Bad usage, bad config or bad input (exit 2); the message names the field or argument.
export class UsageError extends TeamError {
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

// A run whose record or folders cannot be read (a damaged run.json, a folder not readable): the
// command that needs it stops; one that lists runs names it and goes on.
export class UnreadableRunError extends UsageError {}

// Replaying the log did not reproduce what the log recorded: nothing may be changed.
export class DeterminismError extends TeamError {
  constructor(message: string) {
    super(`determinism violation: ${message}`, EXIT.failed);
  }
}

// Another orchestrator drives this run.
export class LockedError extends TeamError {
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

// The disk (or the user's quota) is full: the file that could not be written is named, nothing half
// written is left (a temporary file is removed), and what was recorded before stays as it was.
export class DiskFullError extends TeamError {
  constructor(
    readonly path: string,
    readonly code: string,
  ) {
    super(`the disk is full: ${path} cannot be written (${code}: ${code === 'EDQUOT' ? 'disk quota exceeded' : 'no space left on device'}); what was recorded before is as it was: free some space and run the command again`, EXIT.failed);
  }
}

// Whether an error is a full disk's (or quota's).
export function isDiskFull(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

// The run's event log cannot be written (a full disk, a deleted events folder): the run stops where
// it is, resumable once the log can be written again.
export class LogWriteError extends TeamError {
  constructor(runId: string, cause: Error, done = 'the run stopped here and its workers were stopped') {
    super(`the event log of run ${runId} cannot be written (${cause.message}); ${done}; \`team resume --run ${runId}\` continues it once the log can be written`, EXIT.failed);
  }
}

// The wall-clock cap of one attempt: the stage's own from config, else the team-wide one.
import type { TeamConfig } from '../../config/schema.js';
import type { Stage } from '../../workers/types.js';

// How long an attempt of `stage` may run before the watchdog kills it, whatever it prints.
export function attemptCapMs(config: TeamConfig, stage: Stage): number {
  return config.team.attemptTimeoutMsPerStage[stage] ?? config.team.attemptTimeoutMs;
}

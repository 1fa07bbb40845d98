// The run's live trace (src/views/trace/live.ts), when team.telemetry or the OTEL_* variables ask
// for one: what the session tells each durable batch of the log to.
import type { TeamConfig } from '../../config/schema.js';
import type { TeamEvent } from '../log/schema.js';
import type { Progress } from '../session/progress.js';
import { startLiveTrace } from '../views/trace/live.js';

export function liveTelemetry(runId: string, config: TeamConfig, progress: Progress, earlier: readonly TeamEvent[], env: NodeJS.ProcessEnv = process.env): ((batch: readonly TeamEvent[]) => void) | undefined {
  return startLiveTrace({ runId, telemetry: config.team.telemetry, env, earlier, warn: (line) => progress.emit({ type: 'telemetry.dropped' }, `! ${line}`) });
}

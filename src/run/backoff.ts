// The back-offs of rate-limited agents (issue 29): the machine keeps each one's end as a time in its
// context (from the attempt_throttled event); here a timer logs backoff_ended at that time. A
// takeover rebuilds the context from the log and sets the timers again for what is left.
import type { AnyActorRef } from 'xstate';
import type { PipelineContext } from '../../machines/types.js';
import type { RunSession } from '../session/session.js';

// Sets a timer for every back-off under way, as the machine's snapshots show them; returns the stop.
export function watchBackoffs(session: Pick<RunSession, 'events' | 'progress'>, actor: AnyActorRef): () => void {
  const timers = new Map<string, NodeJS.Timeout>();
  const look = (context: PipelineContext) => {
    for (const [agent, throttle] of Object.entries(context.throttle ?? {})) {
      const key = `${agent}@${throttle.until}`;
      if (!throttle.waiting || timers.has(key)) continue;
      const waitMs = Math.max(0, throttle.until - Date.now());
      session.progress.emit({ type: 'backoff.started', agent, lanes: throttle.lanes, waitMs }, `⧗ ${agent}: rate limited, ${throttle.lanes} lane(s) now, next try in ${Math.ceil(waitMs / 1000)} s`);
      const timer = setTimeout(() => {
        const now = (actor.getSnapshot() as { context: PipelineContext }).context.throttle?.[agent];
        if (now?.waiting && now.until === throttle.until) session.events.commit({ event: 'backoff_ended', agent });
      }, waitMs);
      timers.set(key, timer);
    }
  };
  const subscription = actor.subscribe((snapshot: { context: PipelineContext }) => look(snapshot.context));
  look((actor.getSnapshot() as { context: PipelineContext }).context);
  return () => {
    subscription.unsubscribe();
    for (const timer of timers.values()) clearTimeout(timer);
  };
}

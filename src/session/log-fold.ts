// The fold of the run's log as this orchestrator knows it: what the log held when it began (folded
// once, at the takeover) and every event it has made durable since, in order. The opchain
// checkpoint, the view snapshot and the handoff texts of prompts are taken from it, never by
// reading the log again.
import type { TeamEvent } from '../log/schema.js';
import type { RunPaths, RunRecord } from '../log/write.js';
import { foldEvents, newFold, viewOf, type FoldState, type RunView } from '../log/fold/fold.js';
import { asRead } from '../log/fold/event.js';
import { writeViewSnapshot } from '../log/snapshot.js';

type LoggedEvent = TeamEvent & { file: string };

// What the log held when this orchestrator began: its fold and every event file name.
export interface FoldedLog {
  st: FoldState;
  names: string[];
}

export class LogFold {
  private readonly st: FoldState;
  private readonly names: string[];
  /** Appended, not yet known to be durable. */
  private readonly pending: LoggedEvent[] = [];

  constructor(
    private readonly run: RunRecord,
    begun?: FoldedLog,
    /** Told each batch of events as it becomes durable, in order (the run's live trace); what it throws is its own. */
    private readonly observe?: (batch: readonly TeamEvent[]) => void,
  ) {
    this.st = begun?.st ?? newFold(run);
    this.names = begun ? [...begun.names] : [];
  }

  // An event appended to the log (in the log once a flush says so), as a read of the log gives it.
  appended(event: LoggedEvent): void {
    this.pending.push(asRead(event));
  }

  // The events appended and not yet durable, in order: what a step being committed holds besides the
  // fold (a job made in the same step reads them).
  pendingEvents(): readonly TeamEvent[] {
    return this.pending;
  }

  // The first `count` events appended and not yet folded are durable now: they join the fold.
  durable(count: number): void {
    const batch = this.pending.splice(0, count);
    foldEvents(this.st, batch);
    for (const event of batch) this.names.push(event.file);
    try {
      this.observe?.(batch);
    } catch {
      // An observer's failure is never the log's.
    }
  }

  // The fold of the durable log, to read (never to change).
  get state(): Readonly<FoldState> {
    return this.st;
  }

  // The text of the handoff at `path`, when the durable log holds it (older logs hold none).
  handoffText(path: string): string | undefined {
    const { handoffs } = this.st.story;
    for (let i = handoffs.length - 1; i >= 0; i--) if (handoffs[i]!.path === path && handoffs[i]!.text !== undefined) return handoffs[i]!.text;
    return undefined;
  }

  // The run as the durable log has it (approvals are not part of it: they are files of their own).
  view(projectDir: string): RunView {
    return viewOf(this.st, { run: this.run, approvals: [], problems: [] }, projectDir);
  }

  // Saves the fold as the run's view snapshot (status then reads only the events after it).
  save(paths: RunPaths): void {
    writeViewSnapshot(paths, this.st, this.names);
  }
}

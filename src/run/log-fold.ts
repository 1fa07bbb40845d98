// The fold of the run's log as this orchestrator knows it: what the log held when it began (folded
// once, at the takeover) and every event it has made durable since, in order. The opchain
// checkpoint and the view snapshot are made from it, never by reading the log again.
import type { TeamEvent } from '../log/schema.js';
import type { RunPaths, RunRecord } from '../log/write.js';
import { foldEvents, newFold, viewOf, type FoldState, type RunView } from '../log/fold.js';
import { writeViewSnapshot } from '../log/snapshot.js';

export type LoggedEvent = TeamEvent & { file: string };

// What the log held when this orchestrator began: its fold, its valid events and every event file name.
export interface FoldedLog {
  st: FoldState;
  events: LoggedEvent[];
  names: string[];
}

export class LogFold {
  private readonly st: FoldState;
  private readonly known: LoggedEvent[];
  private readonly names: string[];
  /** Appended, not yet known to be durable. */
  private readonly pending: LoggedEvent[] = [];
  /** Each handoff's text by the path its handoff_written names (older logs hold none). */
  private readonly handoffs = new Map<string, string>();

  constructor(
    private readonly run: RunRecord,
    begun?: FoldedLog,
  ) {
    this.st = begun?.st ?? newFold(run);
    this.known = begun ? [...begun.events] : [];
    this.names = begun ? [...begun.names] : [];
    for (const event of this.known) this.noteHandoff(event);
  }

  // An event appended to the log (in the log once a flush says so).
  appended(event: LoggedEvent): void {
    this.pending.push(event);
  }

  // The first `count` events appended and not yet folded are durable now: they join the fold.
  durable(count: number): void {
    const batch = this.pending.splice(0, count);
    foldEvents(this.st, batch);
    for (const event of batch) {
      this.known.push(event);
      this.names.push(event.file);
      this.noteHandoff(event);
    }
  }

  // The text of the handoff at `path`, when the durable log holds it.
  handoffText(path: string): string | undefined {
    return this.handoffs.get(path);
  }

  private noteHandoff(event: LoggedEvent): void {
    if (event.event === 'handoff_written' && event.text !== undefined) this.handoffs.set(event.path, event.text);
  }

  // The valid events of the log so far, in order.
  get events(): readonly LoggedEvent[] {
    return this.known;
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

// One store interface, two stores: the files under .team/runs (the default) and PostgreSQL. The
// fold (src/run/replay.ts, src/log/fold.ts) reads either, the bodies being the same.
import type { Approval, NewEvent, TeamEvent } from '../log/schema.js';
import type { ApprovalView } from '../log/approvals.js';
import type { Problem } from '../log/read.js';
import type { RunRecord } from '../log/write.js';

// An attempt with more than one terminal record: none of them is trusted as its end.
export interface TerminalConflict {
  task: string;
  attempt: number;
  /** The records' names (event file names), in the order written. */
  files: string[];
}

// What a store reads of one run: the fold's input.
export interface RunRead {
  run: RunRecord;
  /** Valid events, in the order written, each with its name (the file store's file name). */
  events: Array<TeamEvent & { file: string }>;
  approvals: Array<Approval & { file: string }>;
  /** Records that do not parse with their schema: reported, never trusted. */
  malformed: Problem[];
  /** Attempts with more than one terminal record (a store that refuses them never has any). */
  conflicts: TerminalConflict[];
}

// The fields of run.json a new run is created with.
export type NewRun = Omit<RunRecord, 'run_id' | 'created_at'>;

// The operations of docs/scale-out.md; every store passes test/store/conformance.ts.
export interface RunStore {
  readonly kind: 'files' | 'postgres';
  /** Creates the run (with `runId`, else a new id) and makes it the current one; an id in use is refused. */
  createRun(fields: NewRun, runId?: string): Promise<RunRecord>;
  /** Appends one machine step's records, in order and all or none; a second terminal record of an attempt is refused. */
  append(runId: string, records: NewEvent[]): Promise<TeamEvent[]>;
  /** The run's events, approvals, malformed records and conflicts. */
  read(runId: string): Promise<RunRead>;
  approve(runId: string, approval: Approval): Promise<void>;
  /** The run's approvals, each checked against the artifact in `projectDir` as it is now. */
  approvals(runId: string, projectDir: string): Promise<ApprovalView[]>;
  /** The latest run created, or undefined when there is none. */
  current(): Promise<string | undefined>;
  close(): Promise<void>;
}

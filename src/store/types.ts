// One store interface, two stores: the files under .team/runs (the default) and PostgreSQL. The
// fold (src/session/replay.ts, src/log/fold/fold.ts) reads either, the bodies being the same.
import type { Approval, NewEvent, TeamEvent } from '../log/schema.js';
import type { ApprovalView } from '../log/approvals.js';
import type { Problem, RunFiles } from '../log/read.js';
import type { RunView } from '../log/fold/fold.js';
import type { RunPaths, RunRecord } from '../log/write.js';
import type { InboxRead, NewInboxRequest } from './inbox.js';

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

// Each attempt's last output line, for the live view: read() looks again, of() answers from the last look.
export interface Tails {
  read(): Promise<void>;
  of(task: string, attempt: number): string;
}

// The operations of docs/scale-out.md; every store passes test/store/conformance.ts.
export interface RunStore {
  readonly kind: 'files' | 'postgres';
  /** How messages name the store: the project's folder, or the database (its password hidden). */
  readonly where: string;
  /** Creates the run (with `runId`, else a new id) and makes it the current one; an id in use is refused. */
  createRun(fields: NewRun, runId?: string): Promise<RunRecord>;
  /** Appends one machine step's records, in order and all or none; a second terminal record of an attempt is refused. */
  append(runId: string, records: NewEvent[]): Promise<TeamEvent[]>;
  /** The run's events, approvals, malformed records and conflicts. */
  read(runId: string): Promise<RunRead>;
  /** The run's view, through a snapshot of the fold where the store keeps one; `events` when every event was read for it. */
  view(runId: string, projectDir: string): Promise<{ view: RunView; events?: RunRead['events'] }>;
  /** How many events the run's log holds: a cheap look for whether it grew. */
  eventCount(runId: string): Promise<number>;
  approve(runId: string, approval: Approval): Promise<void>;
  /** The run's approvals, each checked against the artifact in `projectDir` as it is now. */
  approvals(runId: string, projectDir: string): Promise<ApprovalView[]>;
  /** The latest run created, or undefined when there is none. */
  current(): Promise<string | undefined>;
  /** The run a command works on: the named one, else the latest; a store with none is bad input. */
  pickRun(runId?: string): Promise<string>;
  /** Every run's id, oldest first. */
  runIds(): Promise<string[]>;
  hasRun(runId: string): Promise<boolean>;
  /** Takes the run's writer lock under `holder`'s name, or refuses naming the one that holds it (LockedError). */
  lockWriter(runId: string, holder: string): Promise<{ release(): Promise<void> }>;
  /** Whether a writer drives the run now (with `pid`: that process of this machine). */
  hasWriter(runId: string, pid?: number): Promise<boolean>;
  /** Leaves a request for the run's writer (src/store/inbox.ts): a live one takes it, else the next one (resume). */
  postRequest(runId: string, request: NewInboxRequest): Promise<void>;
  /** The run's requests waiting for its writer, in the order posted. */
  pendingRequests(runId: string): Promise<InboxRead>;
  /** Removes a request the writer took (by the `id` pendingRequests gave). */
  removeRequest(runId: string, id: string): Promise<void>;
  /** Each attempt's last output line, where the store keeps it: the attempt's output.log, or its worker's latest report of it. */
  tails(runId: string): Tails;
  /** This machine's folder of the run: its handoffs, its writer's log, a wait's mark. */
  paths(runId: string): RunPaths;
  /** Where `team report` writes the run's page unless told: its folder, or the project (the store's runs have none here). */
  reportFile(runId: string): string;
  /** How a follower says what continues a run nothing drives (`team resume`, with the store it names). */
  resumeHint(runId: string): string;
  /** How messages name where the runs are: `.team/runs`, or the store. */
  readonly runsIn: string;
  /** How often a writer looks for requests: a folder is cheap to list, a query to the database less so. */
  readonly pollMs: number;
  /** The error a command reports for one that ended its work on the store: a lost connection named as such. */
  explain(error: unknown): unknown;
  close(): Promise<void>;
}

// A store's read as the fold's input, shaped as readRunFiles gives it for the files.
export function foldInput(read: RunRead): Pick<RunFiles, 'run' | 'events' | 'approvals' | 'problems'> {
  return { run: read.run, events: read.events, approvals: read.approvals, problems: read.malformed };
}

// Runs `work` on the store, and closes it however the work ends. The PostgreSQL store lost in the
// middle of a command (a restart, the network) is named as such, never a stack: what the store
// recorded stays as it was.
export async function withStore<T>(store: RunStore, work: (store: RunStore) => Promise<T>): Promise<T> {
  try {
    return await work(store);
  } catch (error) {
    throw store.explain(error);
  } finally {
    await store.close();
  }
}

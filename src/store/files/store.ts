// The file store: the existing event files under .team/runs (src/log) behind RunStore. The format
// on disk is unchanged; one writer per run is the run folder's lock (lock.ts).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Approval, NewEvent, TeamEvent } from '../../log/schema.js';
import { checkApproval, type ApprovalView } from '../../log/approvals.js';
import { LIMITS, validateId } from '../../log/guards.js';
import { readRunFiles } from '../../log/read.js';
import { loadRunView } from '../../log/read-view.js';
import { readRegularFile } from '../../sys/regular-file.js';
import { syncDir, TEMP_PREFIX } from '../../sys/atomic.js';
import { appendApproval, appendEvent, createRun, readCurrentRunId, resolveRun, runPaths, runsDir, type RunPaths, type RunRecord, type WriteOptions } from '../../log/write.js';
import { UsageError } from '../../sys/errors.js';
import { acquireLock, liveHolder, readLockHolder } from './lock.js';
import { parseEventBody } from '../parse-body.js';
import { findConflicts, refuseSecondTerminal, type AttemptKey } from '../terminal.js';
import type { NewRun, RunRead, RunStore, Tails } from '../types.js';
import { lastLine } from '../../sys/last-line.js';
import { checkInboxRequest, type InboxRead, type NewInboxRequest } from '../inbox.js';
import { postFileRequest, readFileRequests, removeFileRequest } from './inbox.js';

// A project's runs as files; `write.fsync` as the project's config says.
export class FileStore implements RunStore {
  readonly kind = 'files' as const;

  constructor(
    readonly projectDir: string,
    private readonly write: WriteOptions = { fsync: true },
  ) {}

  get where(): string {
    return this.projectDir;
  }

  async createRun(fields: NewRun, runId?: string): Promise<RunRecord> {
    if (runId !== undefined) {
      validateId(runId, 'run id');
      if (existsSync(runPaths(this.projectDir, runId).runJson)) throw new UsageError(`run id ${runId} is in use: a run is created once`);
    }
    return createRun(this.projectDir, fields, this.write, runId);
  }

  // The step's files are written, then made durable together by one folder fsync.
  async append(runId: string, records: NewEvent[]): Promise<TeamEvent[]> {
    const paths = resolveRun(this.projectDir, runId);
    if (records.some((r) => r.event === 'task_finished')) {
      const names = readdirSync(paths.eventsDir);
      refuseSecondTerminal(runId, records, (key) => hasTerminalFile(paths.eventsDir, names, key));
    }
    const written = records.map((record) => appendEvent(paths, runId, record, { ...this.write, syncDir: false }) as TeamEvent);
    if (this.write.fsync && written.length > 0) syncDir(paths.eventsDir);
    return written;
  }

  async read(runId: string): Promise<RunRead> {
    const files = readRunFiles(resolveRun(this.projectDir, runId));
    return { run: files.run, events: files.events, approvals: files.approvals, malformed: files.problems, conflicts: findConflicts(files.events) };
  }

  async view(runId: string, projectDir: string) {
    return { view: loadRunView(resolveRun(this.projectDir, runId), projectDir) };
  }

  // The events in place: a file being written (a temporary name) counts only once renamed, so that
  // a view folded while it was there is folded again when it lands.
  async eventCount(runId: string): Promise<number> {
    try {
      return readdirSync(this.paths(runId).eventsDir).filter((name) => !name.startsWith(TEMP_PREFIX)).length;
    } catch {
      return -1;
    }
  }

  async approve(runId: string, approval: Approval): Promise<void> {
    appendApproval(resolveRun(this.projectDir, runId), approval, this.write);
  }

  async approvals(runId: string, projectDir: string): Promise<ApprovalView[]> {
    return (await this.read(runId)).approvals.map((approval) => checkApproval(approval, projectDir));
  }

  async current(): Promise<string | undefined> {
    return readCurrentRunId(this.projectDir);
  }

  async pickRun(runId?: string): Promise<string> {
    return resolveRun(this.projectDir, runId).runId;
  }

  // Every run folder with a run.json, by name (a run id begins with its time).
  async runIds(): Promise<string[]> {
    const dir = runsDir(this.projectDir);
    if (!existsSync(dir)) return [];
    const ids = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    return ids.filter((id) => existsSync(this.paths(id).runJson));
  }

  async hasRun(runId: string): Promise<boolean> {
    return existsSync(this.paths(runId).runJson);
  }

  // The run folder's lock file, taken over from a holder that died.
  async lockWriter(runId: string, holder: string): Promise<{ release(): Promise<void> }> {
    const release = acquireLock(this.paths(runId), holder);
    return { release: async () => release() };
  }

  // The lock's holder alive; with `pid`, the lock names that process.
  async hasWriter(runId: string, pid?: number): Promise<boolean> {
    const paths = this.paths(runId);
    return pid === undefined ? liveHolder(paths) !== undefined : readLockHolder(paths)?.pid === pid;
  }

  async postRequest(runId: string, request: NewInboxRequest): Promise<void> {
    postFileRequest(resolveRun(this.projectDir, runId).runDir, checkInboxRequest(request), this.write.fsync);
  }

  async pendingRequests(runId: string): Promise<InboxRead> {
    return readFileRequests(this.paths(runId).runDir);
  }

  async removeRequest(runId: string, id: string): Promise<void> {
    removeFileRequest(this.paths(runId).runDir, id);
  }

  // The tail of each attempt's output.log, read at each look.
  tails(runId: string): Tails {
    const dir = this.paths(runId).attemptsDir;
    return { read: async () => undefined, of: (task, attempt) => lastLine(join(dir, task, `a${attempt}`, 'output.log')) };
  }

  paths(runId: string): RunPaths {
    return runPaths(this.projectDir, runId);
  }

  reportFile(runId: string): string {
    return join(this.paths(runId).runDir, 'report.html');
  }

  resumeHint(runId: string): string {
    return `\`team resume --run ${runId}\` continues it`;
  }

  readonly runsIn = '.team/runs';
  readonly pollMs = 250;

  explain(error: unknown): unknown {
    return error;
  }

  async close(): Promise<void> {}
}

// `20261028T131016577943Z`, the stamp every event file name begins with.
const STAMP_LENGTH = 22;

// Whether the folder holds a trusted task_finished of the attempt (its name says which; its body must agree).
function hasTerminalFile(eventsDir: string, names: string[], key: AttemptKey): boolean {
  const infix = `-task_finished-${key.task}-a${key.attempt}-`;
  return names.some((name) => {
    if (!/^\d{8}T\d{12}Z-/.test(name) || !name.startsWith(infix, STAMP_LENGTH)) return false;
    const read = readRegularFile(join(eventsDir, name), LIMITS.eventBytes);
    const event = read.ok ? parseEventBody(read.text) : undefined;
    return typeof event === 'object' && event.event === 'task_finished' && event.task_id === key.task && event.attempt === key.attempt;
  });
}

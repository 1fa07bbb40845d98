// `team wait [--run ID] [--timeout S]`: blocks until the run ends and exits with its code; at the
// timeout, or with a timeout as soon as a worker asks the lead a question, prints where the run
// stands and exits 5; a run nobody drives any more exits 6.
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { validateId } from '../../log/guards.js';
import type { RunView } from '../../log/fold/fold.js';
import { EXIT } from '../../sys/errors.js';
import { summarize, type WorkPlaces } from '../../run/summary.js';
import { foldRun } from '../../log/fold/fold.js';
import { branchAttention } from '../../isolation/view.js';
import { readHandoffs } from '../../../handoffs/read.js';
import { faceOf } from '../../run/face.js';
import { digestHandoffs } from '../../views/wait/handoffs.js';
import { optionalInt, optionalString, parseFlags } from '../args/args.js';
import { FLAGS } from '../args/flags.js';
import { openProject } from '../args/project.js';
import { openStore } from '../../store/open.js';
import { storeUrlOf } from '../../store/store-url.js';
import { foldInput, withStore, type RunStore } from '../../store/types.js';
import { OUTCOME_EXIT, workPlaces } from '../run.js';
import { summarizeProgress } from '../../views/wait/summary.js';
import { describeStage } from '../../views/status/render.js';
import { openQuestions } from '../../views/team-lines.js';
import { terminalText } from '../../sys/terminal-text.js';
import type { StoreOutage } from '../../store/outage.js';

// How often the log's length is looked at; the run is folded again only when it changed.
const POLL_MS = 250;
// How often the orchestrator's liveness is checked (a /proc read).
const LIVENESS_MS = 1_000;
// On the PostgreSQL store, how long a run's writer may go without its lock before the wait calls the
// run orphaned: longer than the writer's back-off (4 s) while it takes the lock again after an outage.
const ORPHAN_GRACE_MS = 10_000;

type Ended = 'completed' | 'failed' | 'cancelled' | 'stopped';

// What a wait looks at: the run's view (folded again only when its log grew), and whether an
// orchestrator drives it.
interface WaitSource {
  runId: string;
  runDir: string;
  /** `fresh`: folded now, whatever the log's length says (before a verdict that ends the wait). */
  view(fresh?: boolean): Promise<RunView>;
  /** The view of the first `count` events of the log: where a previous wait left it. */
  viewAt(count: number): Promise<RunView>;
  driven(): Promise<boolean>;
  /** Where the work of the run whose view this is lies (branches, checkpoint file), and the handoffs written so far. */
  endings(view: RunView): Promise<{ places: WorkPlaces; handoffs: Array<{ name: string; text: string }> }>;
}

// Waits for the latest or named run; returns the run's exit code, 5 at the timeout, 6 when orphaned.
export async function waitCommand(argv: string[]): Promise<number> {
  const cmd = 'team wait';
  const args = parseFlags(argv, FLAGS.wait, cmd);
  const timeoutS = optionalInt(args, 'timeout', cmd, 1, 7 * 24 * 3600);
  const since = optionalInt(args, 'since', cmd, 0, Number.MAX_SAFE_INTEGER);
  const round = optionalInt(args, 'round', cmd, 1, Number.MAX_SAFE_INTEGER) ?? 1;
  const project = openProject(args, { readsStore: true, readOnly: true });
  const runId = optionalString(args, 'run');
  const named = runId === undefined ? undefined : validateId(runId, '--run');
  const flag = optionalString(args, 'store');
  const url = storeUrlOf(flag, project.config);
  const ride = url === undefined ? undefined : await rideOutages(url, project.config.team.storeOutageMs);
  const store = ride ? await ride.outage.open(() => openStore(project, flag, 'wait')) : await openStore(project, flag, 'wait');
  return withStore(store, async () => {
    const id = ride ? await ride.outage.retry(() => store.pickRun(named)) : await store.pickRun(named);
    return waitFor(waitSource(store, id, project.dir), args.values.json === true, timeoutS, { since, round }, ride);
  });
}

// On the PostgreSQL store, a wait that reached the store goes on through an outage of it, and a run
// whose writer takes its lock again after one (within its back-off) is not taken for orphaned. A
// store never reached is refused at once, as by every command.
async function rideOutages(url: string, outageMs: number): Promise<Ride> {
  const { StoreOutage } = await import('../../store/outage.js');
  return { outage: new StoreOutage(url, outageMs), orphanGraceMs: ORPHAN_GRACE_MS };
}

interface Ride {
  outage: StoreOutage;
  orphanGraceMs: number;
}

async function waitFor(source: WaitSource, json: boolean, timeoutS: number | undefined, marks: { since?: number; round: number }, ride?: Ride): Promise<number> {
  const look: Look = { started: Date.now(), lastLiveness: 0, undrivenSince: undefined };
  for (;;) {
    try {
      const code = await lookOnce(source, json, timeoutS, marks, look, ride?.orphanGraceMs ?? 0);
      if (code !== undefined) return code;
      ride?.outage.over();
    } catch (error) {
      if (!ride?.outage.absorbs(error)) throw error;
    }
    await sleep(POLL_MS);
  }
}

interface Look {
  started: number;
  lastLiveness: number;
  undrivenSince?: number;
  /** The questions to the lead open where this wait starts (its --since, else its first look): a wait with a timeout returns when another is asked. */
  asked?: Set<string>;
  /** The view at --since (null without it), folded once a wait. */
  before?: RunView | null;
  /** The log's length when the questions were last looked at. */
  questionsAt?: number;
}

// One look at the run: its exit code when the wait ends, else undefined.
async function lookOnce(source: WaitSource, json: boolean, timeoutS: number | undefined, { since, round }: { since?: number; round: number }, look: Look, orphanGraceMs: number): Promise<number | undefined> {
  let view = await source.view();
  const ended = endedAs(view.status);
  if (ended && (ended !== 'stopped' || !(await source.driven()))) return reportEnded(source, view, ended, json);
  // A worker's question to the lead needs the person now, not at the timeout: a wait that follows the
  // run for an agent (with --timeout) returns as at its timeout, with the question under needs attention.
  // Looked at again only when the log grew (a poll is every 250 ms).
  if (timeoutS !== undefined && view.eventCount !== look.questionsAt) {
    look.questionsAt = view.eventCount;
    look.before ??= since === undefined ? null : await source.viewAt(Math.min(since, view.eventCount));
    look.asked ??= new Set(openQuestions(look.before ?? view).map((q) => q.key));
    const asked = openQuestions(view).filter((q) => !look.asked!.has(q.key));
    if (asked.length > 0) {
      const why = `a worker asked the lead (${asked.length === 1 ? 'one question' : `${asked.length} questions`}): the person's answer goes on with \`team say\`, under needs attention`;
      const questions = asked.map((q) => ({ from: q.from, task: q.task, text: q.text }));
      return reportProgress(source, view, json, timeoutS, { before: look.before ?? undefined, round, waitedS: Math.round((Date.now() - look.started) / 1000) }, { type: 'wait.question', questions }, why);
    }
  }
  if (Date.now() - look.lastLiveness >= LIVENESS_MS) {
    look.lastLiveness = Date.now();
    const driven = await source.driven();
    look.undrivenSince = driven ? undefined : (look.undrivenSince ?? Date.now());
    if (!driven && Date.now() - look.undrivenSince! >= orphanGraceMs) {
      view = await source.view(true);
      const now = endedAs(view.status);
      if (now) return reportEnded(source, view, now, json);
      const line = `run ${source.runId} is ${view.status} at ${describeStage(view)}, but nothing drives it (its orchestrator stopped or died): \`team resume --run ${source.runId} --detach\` continues it, \`team cancel --run ${source.runId}\` ends it`;
      write(json, { type: 'wait.orphaned', run: source.runId, status: view.status, stage: view.stage }, line);
      return EXIT.noOrchestrator;
    }
  }
  if (timeoutS !== undefined && Date.now() - look.started >= timeoutS * 1000) {
    const now = await source.view();
    // The run may have ended since the look above: its end, not a summary of a run "still completed".
    const endedNow = endedAs(now.status);
    if (endedNow && (endedNow !== 'stopped' || !(await source.driven()))) return reportEnded(source, now, endedNow, json);
    const before = since === undefined ? undefined : await source.viewAt(Math.min(since, now.eventCount));
    return reportProgress(source, now, json, timeoutS, { before, round }, { type: 'wait.timeout' });
  }
  return undefined;
}

// Where the run stands, as a wait that returns before the run's end prints it (exit 5): at its
// timeout, or at a question to the lead (`why` then follows the first line).
function reportProgress(source: WaitSource, view: RunView, json: boolean, timeoutS: number, marks: { before?: RunView; round: number; waitedS?: number }, data: { type: string } & Record<string, unknown>, why?: string): number {
  const lines = withCheckoutChanges(summarizeProgress(view, source.runDir, timeoutS, marks), view);
  const text = why === undefined ? lines : [lines[0]!, `  ${why}`, ...lines.slice(1)];
  write(json, { ...data, run: source.runId, status: view.status, stage: view.stage, summary: lines }, text.join('\n'));
  return EXIT.waitTimeout;
}

// The run on its store, folded again when its log holds another number of events. The wait's mark
// (what changed since the last wait) is kept in this machine's folder of the run.
export function waitSource(store: RunStore, id: string, projectDir: string): WaitSource {
  const paths = store.paths(id);
  mkdirSync(paths.runDir, { recursive: true });
  let seen = -1;
  let view: RunView | undefined;
  return {
    runId: id,
    runDir: paths.runDir,
    view: async (fresh = false) => {
      const count = await store.eventCount(id);
      if (fresh || count !== seen || !view) {
        seen = count;
        view = (await store.view(id, projectDir)).view;
      }
      return view;
    },
    viewAt: async (count) => {
      const read = await store.read(id);
      return foldRun({ ...foldInput(read), events: read.events.slice(0, count) }, projectDir);
    },
    driven: () => store.hasWriter(id),
    // The handoffs of the run's folder on this machine, else the texts its log holds (a run on the
    // store, from another machine); the work's places here when its attempts ran here.
    endings: async (ended) => {
      const folder = readHandoffs(paths.handoffsDir).map((h) => ({ name: basename(h.file), text: h.text }));
      const handoffs = folder.length > 0 ? folder : ended.story.handoffs.flatMap((h) => (h.text !== undefined ? [{ name: basename(h.path), text: h.text }] : []));
      return { places: faceOf(store).placesHere ? workPlaces(ended, projectDir) : ended.branches ? { branches: ended.branches } : {}, handoffs };
    },
  };
}

function endedAs(status: string): Ended | undefined {
  return status === 'completed' || status === 'failed' || status === 'cancelled' || status === 'stopped' ? status : undefined;
}

// The run's summary, with where its work is and what its handoffs decided, risked and left, so
// that an agent reporting it needs no file tool (Gemini's refuses the git-ignored .team/).
async function reportEnded(source: WaitSource, view: RunView, ended: Ended, json: boolean): Promise<number> {
  const { places, handoffs } = await source.endings(view);
  const { lines, data } = summarize(view, { kind: ended, reason: view.outcome ?? '' }, source.runDir, places);
  const digest = digestHandoffs(handoffs);
  write(json, { ...data, handoffs: digest.data }, [...lines, ...digest.lines].join('\n'));
  return OUTCOME_EXIT[ended];
}

// The summary's needs attention, with what of the branches needs a person: the changes the watch on
// the user's checkout saw and no one acknowledged, the writes the fence refused, a branch put back.
function withCheckoutChanges(lines: string[], view: RunView): string[] {
  const changed = view.branches ? branchAttention(view.branches) : [];
  const at = lines.findIndex((line) => line.startsWith('  needs attention:'));
  if (changed.length === 0 || at < 0) return lines;
  const items = changed.map((change) => `    ${change}`);
  return [...lines.slice(0, at), '  needs attention:', ...items, ...lines.slice(at + 1)];
}

// JSON exact; text safe for a terminal.
function write(json: boolean, data: object, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(data)}\n` : `${terminalText(text)}\n`);
}

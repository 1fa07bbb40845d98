// `team wait [--run ID] [--timeout S]`: blocks until the run ends and exits with its code; at the
// timeout prints where the run stands and exits 5; a run nobody drives any more exits 6.
import { readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { validateId } from '../checkpoint/guards.js';
import { resolveRun } from '../checkpoint/store.js';
import type { RunView } from '../checkpoint/view.js';
import { EXIT } from '../errors.js';
import { liveHolder } from '../runtime/lock.js';
import { summarize } from '../runtime/summary.js';
import { loadRunView } from '../runtime/view.js';
import { optionalInt, optionalString, parseFlags } from './args.js';
import { openProject, PROJECT_FLAGS } from './project.js';
import { OUTCOME_EXIT } from './run.js';
import { summarizeProgress } from './wait-summary.js';

// How often the events folder is listed; the run is folded again only when it changed.
const POLL_MS = 250;
// How often the orchestrator's liveness is checked (a /proc read).
const LIVENESS_MS = 1_000;

type Ended = 'completed' | 'failed' | 'cancelled' | 'stopped';

// Waits for the latest or named run; returns the run's exit code, 5 at the timeout, 6 when orphaned.
export async function waitCommand(argv: string[]): Promise<number> {
  const cmd = 'team wait';
  const args = parseFlags(argv, { ...PROJECT_FLAGS, run: { type: 'string' }, timeout: { type: 'string' }, json: { type: 'boolean' } }, cmd);
  const timeoutS = optionalInt(args, 'timeout', cmd, 1, 7 * 24 * 3600);
  const project = openProject(args);
  const runId = optionalString(args, 'run');
  const paths = resolveRun(project.dir, runId === undefined ? undefined : validateId(runId, '--run'));
  const json = args.values.json === true;
  const started = Date.now();
  let seen = -1;
  let lastLiveness = 0;
  let view: RunView = loadRunView(paths, project.dir);
  for (;;) {
    const count = countEvents(paths.eventsDir);
    if (count !== seen) {
      seen = count;
      view = loadRunView(paths, project.dir);
    }
    const ended = endedAs(view.status);
    if (ended && (ended !== 'stopped' || !liveHolder(paths))) return reportEnded(view, ended, paths.runDir, json);
    if (Date.now() - lastLiveness >= LIVENESS_MS) {
      lastLiveness = Date.now();
      if (!liveHolder(paths)) {
        view = loadRunView(paths, project.dir);
        const now = endedAs(view.status);
        if (now) return reportEnded(view, now, paths.runDir, json);
        const line = `run ${paths.runId} is ${view.status} at ${view.stage}, but no orchestrator drives it (it was stopped or died); \`team resume --run ${paths.runId} --detach\` continues it, \`team cancel --run ${paths.runId}\` ends it`;
        write(json, { type: 'wait.orphaned', run: paths.runId, status: view.status, stage: view.stage }, line);
        return EXIT.noOrchestrator;
      }
    }
    if (timeoutS !== undefined && Date.now() - started >= timeoutS * 1000) {
      const lines = summarizeProgress(loadRunView(paths, project.dir), paths.runDir, timeoutS);
      write(json, { type: 'wait.timeout', run: paths.runId, status: view.status, stage: view.stage, summary: lines }, lines.join('\n'));
      return EXIT.waitTimeout;
    }
    await sleep(POLL_MS);
  }
}

function endedAs(status: string): Ended | undefined {
  return status === 'completed' || status === 'failed' || status === 'cancelled' || status === 'stopped' ? status : undefined;
}

function reportEnded(view: RunView, ended: Ended, runDir: string, json: boolean): number {
  const { lines, data } = summarize(view, { kind: ended, reason: view.outcome ?? '' }, runDir);
  write(json, data, lines.join('\n'));
  return OUTCOME_EXIT[ended];
}

function write(json: boolean, data: object, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(data)}\n` : `${text}\n`);
}

function countEvents(dir: string): number {
  try {
    return readdirSync(dir).length;
  } catch {
    return -1;
  }
}

// `team status` of a run in the project's files: read-only; what a person (or, with --json, a script)
// needs to know about a run. A run in a PostgreSQL store is left to the caller (status.ts).
import { existsSync } from 'node:fs';
import { resolveRun, readCurrentRunId, runsDir } from '../../log/write.js';
import { validateId } from '../../log/guards.js';
import type { RunView } from '../../log/fold.js';
import { readRunView } from '../../log/read-view.js';
import { optionalString, parseFlags } from '../args/args.js';
import { FLAGS } from '../args/flags.js';
import { STATE_FLAGS } from '../args/state-flags.js';
import { openProject } from '../args/project.js';
import { notDrivenLine, renderStatus } from '../../views/status/render.js';
import { liveHolder } from '../../run/lock.js';
import { describeBranches, foldBranches, readBranches } from '../../isolation/view.js';
import { storeUrlOf } from '../../store/store-url.js';
import { terminalText } from '../../sys/terminal-text.js';

// A run to be read from a PostgreSQL store (`--store URL` or `team.store`) instead of the files.
export interface StoreStatusAsked {
  store: string;
  runId?: string;
  projectDir: string;
  json: boolean;
}

// Prints the status of the latest or named run and returns the exit code; a project with no run says
// so. With a store, prints nothing and returns what to read from it.
export function showStatus(argv: string[], cmd: string): number | StoreStatusAsked {
  const args = parseFlags(argv, cmd === 'team state status' ? STATE_FLAGS['state status'] : FLAGS.status, cmd);
  const project = openProject(args, { readsStore: true });
  const runId = optionalString(args, 'run');
  const store = storeUrlOf(optionalString(args, 'store'), project.config);
  if (runId !== undefined) validateId(runId, '--run');
  if (store) return { store, ...(runId !== undefined && { runId }), projectDir: project.dir, json: Boolean(args.values.json) };
  if (runId === undefined && (!existsSync(runsDir(project.dir)) || !readCurrentRunId(project.dir))) {
    if (args.values.json) process.stdout.write(`${JSON.stringify({ run: null, approvals: [], message: 'no run' })}\n`);
    else process.stdout.write(`no run in ${project.dir}: .team/runs has no run, and so no approvals\n`);
    return 0;
  }
  const paths = resolveRun(project.dir, runId);
  const { view, events } = readRunView(paths, project.dir);
  // Through a snapshot only the events after it were read; the branches need theirs from the whole
  // log, and only theirs are read.
  printStatus(view, events ? foldBranches(events) : readBranches(paths), paths.runId, Boolean(args.values.json), liveHolder(paths) !== undefined);
  return 0;
}

// Prints a run's view (and its branches, when it has worktrees) as text or as the --json document;
// `driven`: whether an orchestrator drives the run now.
export function printStatus(view: RunView, branches: ReturnType<typeof foldBranches>, runId: string, json: boolean, driven: boolean): void {
  if (json) process.stdout.write(`${JSON.stringify({ ...toJson(view, driven), ...(branches ? { branches } : {}) }, null, 2)}\n`);
  else process.stdout.write(terminalText(renderStatus(view, driven) + (branches ? `${describeBranches(branches, runId, view.status).join('\n')}\n` : '')));
}

// The JSON document of `team status --json`: `driven` and `attention.notDriven` say what the text's
// "nothing drives it" says.
export function toJson(view: RunView, driven: boolean) {
  const notDriven = notDrivenLine(view, driven);
  return {
    run: view.run,
    stage: view.stage,
    status: view.status,
    driven,
    outcome: view.outcome ?? null,
    pipeline: view.pipeline,
    iterations: view.iterations,
    tasks: view.tasks,
    attention: {
      notDriven: notDriven ?? null,
      uncertain: driven ? [] : view.uncertain,
      staleApprovals: view.approvals.filter((a) => a.stale),
      malformed: view.problems,
      conflicts: view.conflicts,
    },
    approvals: view.approvals,
    usage: view.usage,
    eventCount: view.eventCount,
  };
}

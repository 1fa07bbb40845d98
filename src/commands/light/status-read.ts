// `team status`: read-only; what a person (or, with --json, a script) needs to know about a run, from
// the store the project names (its files, or a PostgreSQL store with --store URL or team.store).
import { validateId } from '../../log/guards.js';
import type { RunView } from '../../log/fold/fold.js';
import { optionalString, parseFlags } from '../args/args.js';
import { FLAGS } from '../args/flags.js';
import { STATE_FLAGS } from '../args/state-flags.js';
import { openProject, type Project } from '../args/project.js';
import { budgetDecision, notDrivenLine, renderStatus, type PendingRequests } from '../../views/status/render.js';
import { branchAttention, describeBranches } from '../../isolation/view.js';
import { withStore, type RunStore } from '../../store/types.js';
import { terminalText } from '../../sys/terminal-text.js';
import { openQuestions } from '../../views/team-lines.js';
import { messagesToLead } from '../../log/fold/team.js';
import { drainingWorkers, undeliveredMessages } from '../../log/reach.js';
import { unwrittenCheckpointLine } from '../../checkpoint/written.js';

// Opens the store a project names (`flag`: --store); undefined when this process cannot (the light
// start leaves a PostgreSQL store to the whole CLI).
export type OpenStore = (project: Project, flag: string | undefined) => RunStore | Promise<RunStore> | undefined;

// Prints the status of the latest or named run and returns the exit code; a project (or store) with
// no run says so. Undefined, with nothing printed, when `open` cannot open the store.
export async function showStatus(argv: string[], cmd: string, open: OpenStore): Promise<number | undefined> {
  const args = parseFlags(argv, cmd === 'team state status' ? STATE_FLAGS['state status'] : FLAGS.status, cmd);
  const project = openProject(args, { readsStore: true, readOnly: true });
  const runId = optionalString(args, 'run');
  if (runId !== undefined) validateId(runId, '--run');
  const opened = open(project, optionalString(args, 'store'));
  if (opened === undefined) return undefined;
  return withStore(await opened, async (store) => {
    if (runId === undefined && (await store.current()) === undefined) {
      if (args.values.json) process.stdout.write(`${JSON.stringify({ run: null, approvals: [], message: 'no run' })}\n`);
      else process.stdout.write(`no run in ${store.where}: ${store.runsIn} has no run, and so no approvals\n`);
      return 0;
    }
    const id = await store.pickRun(runId);
    const { view } = await store.view(id, project.dir);
    const scale = (await store.pendingRequests(id)).requests.filter((r) => r.kind === 'scale').at(-1)?.body.workers;
    const checkpoint = unwrittenCheckpointLine(project.dir, id);
    printStatus(view, id, Boolean(args.values.json), await store.hasWriter(id), { ...(typeof scale === 'number' && { scale }), ...(checkpoint && { attention: [checkpoint] }) });
    return 0;
  });
}

// Prints a run's view (and its branches, when it has worktrees) as text or as the --json document;
// `driven`: whether an orchestrator drives the run now.
export function printStatus(view: RunView, runId: string, json: boolean, driven: boolean, pending: PendingRequests = {}): void {
  const { branches } = view;
  if (json) process.stdout.write(`${JSON.stringify({ ...toJson(view, driven, pending), ...(branches ? { branches } : {}) }, null, 2)}\n`);
  else process.stdout.write(terminalText(renderStatus(view, driven, pending) + (branches ? `${describeBranches(branches, runId, view.status, { attention: false }).join('\n')}\n` : '')));
}

// The JSON document of `team status --json`: `driven` and `attention.notDriven` say what the text's
// "nothing drives it" says.
export function toJson(view: RunView, driven: boolean, pending: PendingRequests = {}) {
  const notDriven = notDrivenLine(view, driven);
  const undelivered = undeliveredMessages(view).map((u) => ({ ...u.message, why: u.why }));
  return {
    // The record as written, with the stage and status the log says now: one truth per field.
    run: { ...view.run, stage: view.stage, status: view.status },
    stage: view.stage,
    status: view.status,
    driven,
    outcome: view.outcome ?? null,
    pipeline: view.pipeline,
    iterations: view.iterations,
    tasks: view.tasks,
    attention: {
      notDriven: notDriven ?? null,
      budget: budgetDecision(view) ?? null,
      uncertain: driven ? [] : view.uncertain,
      staleApprovals: view.approvals.filter((a) => a.stale),
      malformed: view.problems,
      conflicts: view.conflicts,
      questions: openQuestions(view),
      checkout: view.branches ? branchAttention(view.branches) : [],
      undelivered,
      project: pending.attention ?? [],
    },
    scale: { requested: pending.scale ?? null, draining: drainingWorkers(view) },
    team: { toLead: messagesToLead(view.team), undelivered, reservations: view.team.reservations, overlaps: view.team.overlaps, notes: Object.fromEntries(view.team.notes) },
    approvals: view.approvals,
    usage: view.usage,
    spend: view.spend,
    eventCount: view.eventCount,
  };
}

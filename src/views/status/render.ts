// Renders a run's view for a person.
import { sharedClaim } from '../../../machines/ownership.js';
import type { AttemptView, RunView } from '../../log/fold/fold.js';
import { terminalLine } from '../../sys/terminal-text.js';
import { raiseCommand, spentParts } from '../../rules/budget-hint.js';
import { spendLines } from './spend.js';
import { drainingWorkers } from '../../log/reach.js';
import { questionLines, teamLines, undeliveredLines } from '../team-lines.js';
import { branchAttention } from '../../isolation/view.js';
import { attemptSeconds } from '../../log/fold/clock.js';
import { countAttempts, describeAttemptCounts, plannedTaskCount } from '../../log/fold/counts.js';
import { statusWord } from '../watch/lanes.js';

// Several lines: the run, its stage, each task with its attempts, and what needs attention.
// `driven`: whether an orchestrator drives the run now (its lock's holder is alive).
// The routing decisions of the iteration under way that status shows, the latest last.
const ROUTING_SHOWN = 8;

// "planner opus, executor haiku, verifier sonnet", or what the lack of a table means.
function describeModels(models: Record<string, string>): string {
  const pairs = Object.entries(models);
  return pairs.length === 0 ? 'no agent with a model table: each agent\'s own model' : pairs.map(([role, model]) => `${role} ${model}`).join(', ');
}

// What the run's writer inbox holds for the run and status shows: a scale asked for, not yet recorded.
export interface PendingRequests {
  scale?: number;
  /** What needs attention that the project shows beside the log (the checkpoint record not written). */
  attention?: string[];
}

export function renderStatus(view: RunView, driven: boolean, pending: PendingRequests = {}): string {
  const { run, pipeline } = view;
  const undriven = notDrivenLine(view, driven);
  const lines = [`run ${run.run_id} (${run.mode ? `${run.mode}, ` : ''}profile ${run.profile})`, `  status ${view.status}${undriven ? ', nothing drives it' : ''}${view.outcome ? `: ${view.outcome}` : ''}`, `  stage  ${describeStage(view)}`];
  if (run.task) lines.push(`  task   ${oneLine(run.task)}`);
  if (run.session) lines.push(`  session ${run.session}`);
  if (pipeline.maxIterations !== undefined) lines.push(`  iteration ${pipeline.iteration} of ${pipeline.maxIterations}`);
  if (pipeline.maxFixLoops !== undefined) lines.push(`  fix loop ${pipeline.loop} of ${pipeline.maxFixLoops}`);
  if (run.mode === 'ralph') {
    for (const it of view.iterations.slice(0, -1)) lines.push(`  iteration ${it.iteration}: ${it.outcome}${it.reasons.length ? ` — ${oneLine(it.reasons.join('; '))}` : ''}`);
  }
  if (pipeline.roster !== undefined) lines.push(`  workers ${pipeline.roster.length}: ${pipeline.roster.join(', ')}`);
  const draining = drainingWorkers(view);
  if (draining.length) lines.push(`  draining: ${draining.map((d) => `${d.worker} (${d.task} a${d.attempt})`).join(', ')}`);
  if (pending.scale !== undefined) lines.push(`  scale requested: ${pending.scale} ${pending.scale === 1 ? 'worker' : 'workers'}, ${driven ? 'its orchestrator records it now' : 'recorded when the run resumes'}`);
  if (pipeline.costMode !== undefined) lines.push(`  models ${pipeline.costMode}: ${describeModels(pipeline.models ?? {})}`);
  for (const d of view.story.routing.filter((r) => r.iteration === pipeline.iteration).slice(-ROUTING_SHOWN)) lines.push(`  routing ${d.stage}: ${oneLine(d.text)}`);
  lines.push(...verifyLines(pipeline));
  if (pipeline.lastReview) lines.push(`  last review: ${pipeline.lastReview.verdict}${pipeline.lastReview.reasons.length ? ` — ${pipeline.lastReview.reasons.join('; ')}` : ''}`);
  if (view.usage.run.costUsd > 0 || view.usage.run.tokens.input > 0) {
    const { input, output, cached } = view.usage.run.tokens;
    // What the providers' prompt caches served of the input: billed at a fraction of fresh input.
    const fromCache = cached ? ` (${cached} from the providers' caches, ${Math.round((100 * cached) / Math.max(1, input))}%)` : '';
    lines.push(`  cost   $${view.usage.run.costUsd.toFixed(4)}, tokens ${input} in${fromCache} / ${output} out`);
  }
  lines.push(...spendLines(view.spend, Date.now()).map((line) => `  ${line}`));
  const counts = countAttempts(view.tasks);
  const told = counts.failed + counts.rateLimited + counts.interrupted > 0 ? `: ${describeAttemptCounts(counts)}` : '';
  // The summary's count (the plan's tasks), and all that are listed: the stages' own are tasks too.
  const planned = plannedTaskCount(view);
  lines.push(`tasks (${planned} planned${view.tasks.length > planned ? `, ${view.tasks.length} listed with the stages' own` : ''})${told}:`);
  if (view.tasks.length === 0) lines.push('  (none yet)');
  for (const task of inPipelineOrder(view.tasks)) {
    const title = task.title;
    lines.push(`  ${task.id.padEnd(18)} ${task.status.padEnd(9)}${title ? ` ${oneLine(title)}` : ''}`.trimEnd());
    for (const attempt of task.attempts) lines.push(`    ${describeAttempt(attempt)}`);
    const wait = task.status === 'pending' ? waitLine(view, task.id) : undefined;
    if (wait) lines.push(`    ${wait}`);
  }
  const team = teamLines(view);
  if (team.length) lines.push('team:', ...team.map((line) => `  ${line}`));
  const attention = [...attentionLines(view, driven), ...(pending.attention ?? [])];
  lines.push(attention.length ? 'needs attention:' : 'needs attention: nothing');
  lines.push(...attention.map((line) => `  ${line}`));
  if (view.approvals.length) {
    lines.push('approvals:');
    for (const a of view.approvals) lines.push(`  ${a.stage} ${a.artifact} by ${a.by} at ${a.approved_at}${a.stale ? ` — STALE: ${a.staleReason}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

// A pending task whose files a running task holds (machines/ownership.ts): it waits for that one.
function waitLine(view: RunView, id: string): string | undefined {
  const files = view.team?.files;
  const mine = files?.get(id);
  if (!mine) return undefined;
  for (const other of view.tasks) {
    if (other.status !== 'running' || other.id === id) continue;
    const shared = sharedClaim(mine, files!.get(other.id));
    if (shared) return `waits for ${other.id}, which holds ${oneLine(shared[1])}`;
  }
  return undefined;
}

// The stages whose attempts come before the plan's tasks, in the order a run goes through them.
const BEFORE_TASKS = ['team-plan', 'team-prd'];

// The tasks as the pipeline reaches them: the planner's, then the PRD's (recorded after the plan's
// tasks, though it runs before them), then the rest in the log's order.
function inPipelineOrder(tasks: RunView['tasks']): RunView['tasks'] {
  const rank = (task: RunView['tasks'][number]) => {
    const at = BEFORE_TASKS.indexOf(task.attempts[0]?.stage ?? '');
    return at === -1 ? BEFORE_TASKS.length : at;
  };
  return tasks.map((task, i) => ({ task, i, rank: rank(task) })).sort((a, b) => a.rank - b.rank || a.i - b.i).map((e) => e.task);
}

// The defects status lists at most; the report has them all.
const DEFECTS_SHOWN = 10;

// The last verify pass: each finder's verdict, and every defect of the pass with who found it.
function verifyLines(pipeline: RunView['pipeline']): string[] {
  if (!pipeline.verify) return [];
  const { pass, verdicts } = pipeline.verify;
  const defects = pipeline.lastDefects;
  const more = defects.length > DEFECTS_SHOWN ? [`    … ${defects.length - DEFECTS_SHOWN} more`] : [];
  return [
    `  ${pass}: ${verdicts.map((v) => `${v.by} ${v.verdict}`).join(', ')}`,
    ...defects.slice(0, DEFECTS_SHOWN).map((d) => `    defect ${oneLine(d.id)}${d.by ? ` (${oneLine(d.by)})` : ''}: ${oneLine(d.description)}`),
    ...more,
  ];
}

function describeAttempt(a: AttemptView): string {
  const parts = [`a${a.attempt} ${statusWord(a)}`, a.stage];
  if (a.worker) parts.push(a.worker);
  if (a.agent) parts.push(`agent ${a.agent}`);
  const seconds = a.finishedAt ? attemptSeconds(a) : undefined;
  if (seconds !== undefined) parts.push(`${seconds.toFixed(1)}s`);
  if (a.costUsd > 0) parts.push(`$${a.costUsd.toFixed(4)}`);
  if (a.stalled) parts.push('stalled');
  if (a.evidence) parts.push(`— ${oneLine(a.evidence)}`);
  return parts.join(' · ');
}

// What needs a person, in one list: a run nothing drives, uncertain attempts, decisions, stale
// approvals, malformed files, conflicts, the user's checkout changed under the run, open questions,
// undelivered messages. A running attempt of a driven run is its orchestrator's to watch.
export function attentionLines(view: RunView, driven: boolean): string[] {
  const lines: string[] = [];
  const undriven = notDrivenLine(view, driven);
  if (undriven) lines.push(undriven);
  if (!driven) for (const u of view.uncertain) lines.push(`uncertain: ${u.task} attempt ${u.attempt} started with no terminal event`);
  const budget = budgetDecision(view);
  if (budget) lines.push(budget);
  else if (view.status === 'stopped' && view.uncertain.length === 0) {
    for (const task of view.tasks) {
      const last = task.attempts.at(-1);
      if (last?.status === 'interrupted') {
        lines.push(`decision needed: ${task.id} attempt ${last.attempt} was interrupted; \`team resume --run ${view.run.run_id} --retry-interrupted\` retries it`);
      }
    }
  }
  for (const a of view.approvals.filter((x) => x.stale)) lines.push(`stale approval: ${a.stage} ${a.artifact} (${a.staleReason})`);
  for (const p of view.problems) lines.push(`malformed: ${p.file} — ${p.reason}`);
  for (const c of view.conflicts) lines.push(`conflict: ${c.task} attempt ${c.attempt} has ${c.statuses.length} terminal events (${c.statuses.join(', ')}): ${c.files.join(', ')}`);
  if (view.branches) lines.push(...branchAttention(view.branches));
  if (view.team) lines.push(...questionLines(view), ...undeliveredLines(view));
  return lines;
}

// A run stopped for its spent budget (exit 4): the decision, and the command that goes on with the
// flag of the part that ran out (a raise tries the attempts the budget stopped again).
export function budgetDecision(view: Pick<RunView, 'status' | 'spend'> & { run: { run_id: string } }): string | undefined {
  const { spend } = view;
  if (view.status !== 'stopped' || !spend.exceeded) return undefined;
  return `decision needed: ${spend.exceeded}; ${raiseCommand(spentParts(spend.budget, spend.spentUsd, spend.spentTokens), view.run.run_id)} raises it and goes on`;
}

// A run that should be driven (running, or being cancelled) and is not: what says so, and what continues it.
export function notDrivenLine(view: Pick<RunView, 'status' | 'orchestrated'> & { run: { run_id: string } }, driven: boolean): string | undefined {
  if (driven || !view.orchestrated) return undefined;
  const id = view.run.run_id;
  if (view.status === 'running') return `nothing drives this run: \`team resume --run ${id}\` continues it, \`team cancel --run ${id}\` ends it (its orchestrator stopped or died)`;
  if (view.status === 'cancelling') return `nothing drives this run's cancel: \`team cancel --run ${id}\` finishes it (its orchestrator stopped or died)`;
  return undefined;
}

// Where a run stands, in words: its stage, with the fix loop and the ralph iteration it is in.
export function describeStage(view: RunView): string {
  const { loop, iteration, maxIterations } = view.pipeline;
  const within = [...(loop > 0 ? [`fix loop ${loop}`] : []), ...(maxIterations !== undefined && iteration > 1 ? [`iteration ${iteration}`] : [])];
  return `${view.stage}${within.length ? ` (${within.join(', ')})` : ''}`;
}

// Made safe before it is cut: a cut must not split an escape sequence.
function oneLine(text: string): string {
  const flat = terminalLine(text).replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}

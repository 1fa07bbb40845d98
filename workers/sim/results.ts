// Builds the result JSON of SPEC section 4 for each stage, from the scenario and the attempt.
import { readFileSync } from 'node:fs';
import type { Behaviour, Defect, PlanTask, Scenario, ScenarioPlan } from './scenario.js';
import type { SimEnv } from './sim-env.js';
import { toIterationId, type TaskIdParts } from './task-id.js';

export interface ResultContext {
  env: SimEnv;
  task: TaskIdParts;
  scenario: Scenario;
  behaviour: Behaviour;
  /** The prompt's first line, quoted in the summary to show the prompt was read. */
  promptLine: string;
  artifacts: string[];
  /** Distinct review task ids of this run already in the ledger. */
  earlierReviews: number;
}

type FilledPlanTask = PlanTask & { title: string; description: string };

export type SimResult = Record<string, unknown> & { status: 'completed' | 'failed'; summary: string };

// The whole result for the attempt: a failed one when the scenario says so, else the stage's fields.
export function makeResult(ctx: ResultContext): SimResult {
  const { env, task, behaviour } = ctx;
  const evidence = `sim agent, scenario "${ctx.scenario.name ?? 'unnamed'}", ${env.worker}, pid ${process.pid}`;
  if (behaviour.fail) {
    const summary = typeof behaviour.fail === 'string' ? behaviour.fail : `sim: the scenario fails ${task.id} attempt ${env.attempt}`;
    return { status: 'failed', summary, artifacts: ctx.artifacts, evidence, next: 'retry the task' };
  }
  const base = {
    status: 'completed' as const,
    summary: `sim ${env.stage} ${task.id} attempt ${env.attempt}: ${ctx.promptLine}`.trimEnd(),
    artifacts: ctx.artifacts,
    evidence,
    next: 'hand over to the next stage',
  };
  return { ...base, ...makeStageFields(ctx) };
}

function makeStageFields(ctx: ResultContext): Record<string, unknown> {
  const { scenario, task } = ctx;
  switch (ctx.env.stage) {
    case 'team-plan': {
      if (ctx.env.role === 'architect') return scenario.architect ?? { notes: ['sim architect: keep the modules as they are'], risks: [] };
      if (ctx.env.role === 'explore') return { findings: scenario.explore ?? { files: ['README.md'], commands: [], conventions: ['sim: the explore agent read nothing'] } };
      const plan = ctx.behaviour.plan ?? scenario.plan;
      return { tasks: listPlanTasks(plan), needsPrd: plan.needsPrd ?? false, ...(plan.architectural !== undefined && { architectural: plan.architectural }), ...(plan.needsArchitect !== undefined && { needsArchitect: plan.needsArchitect }) };
    }
    case 'team-prd':
      if (ctx.env.role === 'critic') return scenario.critic ?? { objections: [], acceptance: {} };
      return { acceptance: makeAcceptance(listPlanTasks(scenario.plan), task.iteration) };
    case 'team-verify':
      if (ctx.env.role === 'selector') return makePick(ctx);
      if (task.reviewer !== undefined) return makeReview(scenario, task);
      return failsVerify(scenario, task.pass ?? 1)
        ? { verdict: 'fail', defects: listDefects(scenario, task.iteration) }
        : { verdict: 'pass', defects: [] };
    case 'ralph-review':
      return rejectsReview(scenario, ctx.earlierReviews)
        ? { verdict: 'reject', reasons: scenario.review.reasons ?? [`sim architect rejects review ${ctx.earlierReviews + 1}`] }
        : { verdict: 'approve', reasons: [] };
    default:
      return {};
  }
}

// The selector's pick: the scenario's, else the first candidate the prompt lists as completed with
// its gates passed, else the first completed one whose gates did not run, else the first completed.
function makePick(ctx: ResultContext): Record<string, unknown> {
  if (ctx.behaviour.pick) return { pick: ctx.behaviour.pick, reasons: ['sim: the scenario picks it'] };
  const lines = (ctx.env.promptFile ? readFileSync(ctx.env.promptFile, 'utf8') : '').split('\n');
  const listed = lines.flatMap((line) => {
    const found = /^- (\S+) \([^)]*\): completed; gates (passed|failed|not run)/.exec(line);
    return found ? [{ id: found[1]!, gates: found[2]! }] : [];
  });
  const pick = listed.find((c) => c.gates === 'passed') ?? listed.find((c) => c.gates === 'not run') ?? listed[0];
  return pick ? { pick: pick.id, reasons: [`sim: ${pick.id} completed and its gates ${pick.gates === 'not run' ? 'did not run' : pick.gates}`] } : { pick: 'none', reasons: ['sim: the prompt lists no completed candidate'] };
}

// The plan's tasks with titles and descriptions filled in; `count: N` makes N independent tasks t1..tN.
export function listPlanTasks(plan: ScenarioPlan): FilledPlanTask[] {
  const given = plan.tasks ?? Array.from({ length: plan.count ?? 1 }, (_, i) => ({ id: `t${i + 1}` }) as PlanTask);
  return given.map((task) => ({
    ...task,
    title: task.title ?? `Sim task ${task.id}`,
    description: task.description ?? `Write sim-output/${task.id}.txt for task ${task.id}.`,
  }));
}

// Criteria for every planned task, keyed by the planner's id and, from iteration 2 on, the prefixed id too.
function makeAcceptance(tasks: PlanTask[], iteration: number): Record<string, string[]> {
  const acceptance: Record<string, string[]> = {};
  for (const task of tasks) {
    const criteria = task.acceptance ?? [`sim-output/${task.id}.txt exists and names task ${task.id}`];
    acceptance[task.id] = criteria;
    if (iteration >= 2) acceptance[toIterationId(task.id, iteration)] = criteria;
  }
  return acceptance;
}

// A reviewer's verdict: as its entry under verify.reviewers says, else pass.
function makeReview(scenario: Scenario, task: TaskIdParts): Record<string, unknown> {
  const own = scenario.verify.reviewers?.[task.reviewer!];
  const fails = own !== undefined && (own.failPasses === 'always' || (task.pass ?? 1) <= own.failPasses);
  if (!fails) return { verdict: 'pass', defects: [] };
  return { verdict: 'fail', defects: own.defects ?? [{ id: 'r1', description: `sim ${task.reviewer} found a defect` }] };
}

function failsVerify(scenario: Scenario, pass: number): boolean {
  const { failPasses } = scenario.verify;
  return failPasses === 'always' || pass <= failPasses;
}

function rejectsReview(scenario: Scenario, earlierReviews: number): boolean {
  const { rejectFirst } = scenario.review;
  return rejectFirst === 'always' || earlierReviews < rejectFirst;
}

function listDefects(scenario: Scenario, iteration: number): Defect[] {
  const firstTask = listPlanTasks(scenario.plan)[0]?.id;
  const defects = scenario.verify.defects ?? [{ id: 'd1', description: 'sim verifier found a defect', task: firstTask }];
  return defects.map((defect) => {
    if (defect.task === undefined) return { id: defect.id, description: defect.description };
    return { ...defect, task: defect.task.startsWith(`i${iteration}.`) ? defect.task : toIterationId(defect.task, iteration) };
  });
}

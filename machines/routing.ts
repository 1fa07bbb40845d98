// Stage routing: which agent runs each role, which reviewers join verify, who fixes a defect and
// where a tagged task goes, each with its reason in words. Pure: the steps record what it decides.
import { describeDecision } from '../src/log/decision.js';
import type { Defect, NewEvent, PipelineContext, RoutingDecision, Stage, TaskDef } from './types.js';

// A role with no agent of its own runs on the agent of its stage's default role.
export const ROLE_FALLBACK: Record<string, string> = {
  explore: 'planner',
  critic: 'analyst',
  debugger: 'executor',
  'security-reviewer': 'verifier',
  'code-reviewer': 'verifier',
  // The best of N's judge (issue 38).
  selector: 'verifier',
};

// The reviewers verify may add beside the verifier, in the order they start.
export const REVIEWER_ROLES = ['security-reviewer', 'code-reviewer'] as const;

type RoutingContext = Pick<PipelineContext, 'agents' | 'defaultAgent' | 'agentType' | 'noted'>;

// The agent a role runs on, and the fallback note when it has none of its own (once per run).
export function routeRole(context: RoutingContext, role: string): { agent: string; decisions: RoutingDecision[] } {
  const own = context.agents[role];
  if (own) return { agent: own, decisions: [] };
  const fallback = ROLE_FALLBACK[role] ?? context.agentType;
  const agent = context.agents[fallback] ?? context.defaultAgent;
  if (context.noted.includes(role)) return { agent, decisions: [] };
  return { agent, decisions: [{ role, agent, why: `has no agent of its own: runs on the ${fallback}'s (${agent})` }] };
}

// The agent a role runs on (no note): its own, else its fallback role's, else the run's default.
export function agentOf(context: Pick<PipelineContext, 'agents' | 'defaultAgent' | 'agentType'>, role: string): string {
  const fallback = ROLE_FALLBACK[role];
  return context.agents[role] ?? (fallback !== undefined ? context.agents[fallback] : undefined) ?? context.defaultAgent;
}

// The model the cost mode chose for a role, when the attempt runs on the role's own agent.
export function modelOf(context: Pick<PipelineContext, 'agents' | 'defaultAgent' | 'agentType' | 'models'>, role: string, agent: string): string | undefined {
  const model = context.models?.[role];
  return model !== undefined && agent === agentOf(context, role) ? model : undefined;
}



// The reviewers that join this verify pass, each with why, from the scan of the run's changes.
export function decideReviewers(context: Pick<PipelineContext, 'routing' | 'changes' | 'architectural'>): Array<{ role: string; why: string }> {
  const { routing, changes } = context;
  if (!routing) return [];
  const reviewers: Array<{ role: string; why: string }> = [];
  if (changes && changes.security.length > 0) reviewers.push({ role: 'security-reviewer', why: `added: ${changes.security.slice(0, 3).join('; ')}` });
  if (changes && changes.files > routing.reviewFiles) reviewers.push({ role: 'code-reviewer', why: `added: ${changes.files} files changed (more than ${routing.reviewFiles})` });
  else if (context.architectural) reviewers.push({ role: 'code-reviewer', why: 'added: the plan marks the work architectural' });
  return reviewers;
}

// Words of a defect that a build, a compiler or a type checker reports.
const BUILD_WORDS = /\b(build|builds|compile|compiler|compilation|type ?error|type-?check|typecheck|tsc|does not compile|syntax error)\b/i;

// True for a defect a debugger should take: a failing gate, or a build or type error.
export function isBuildDefect(defect: Defect): boolean {
  return defect.by === 'gate' || /^gate-\d+$/.test(defect.id) || BUILD_WORDS.test(defect.description);
}

// The role that fixes a defect, and why when it is not the run's agent type.
export function fixerOf(context: Pick<PipelineContext, 'routing' | 'agentType'>, defect: Defect): { role: string; why?: string } {
  if (context.routing?.fixer !== 'debugger' || !isBuildDefect(defect)) return { role: context.agentType };
  const what = defect.by === 'gate' || /^gate-\d+$/.test(defect.id) ? 'a failing gate' : 'a build or type defect';
  return { role: 'debugger', why: `takes it: ${what} (${defect.id})` };
}

// Where a planned task goes: its tagged agent when the config knows it, else its role's agent,
// else the executor, with a note whenever the tag or role cannot be honoured.
export function routeTask(context: Pick<PipelineContext, 'routing' | 'agents' | 'agentType'>, def: TaskDef): { role: string; agent?: string; why?: string } {
  const role = def.role ?? context.agentType;
  if (!context.routing) return { role };
  if (def.agent !== undefined) {
    if (context.routing.known.includes(def.agent)) return { role, agent: def.agent, why: `runs on ${def.agent}: tagged by the planner` };
    return { role: context.agentType, why: `takes it: the planner tagged ${def.agent}, which is not configured` };
  }
  if (def.role !== undefined && !context.agents[def.role]) return { role: context.agentType, why: `takes it: the planner tagged the role ${def.role}, which has no agent` };
  return { role };
}

// The routing_decided record of a stage's decisions and the context that keeps them: nothing
// when there is nothing to say. A role's fallback is noted once per run.
export function recordDecisions(context: PipelineContext, stage: Stage, decisions: RoutingDecision[]): { records: NewEvent[]; context: Partial<PipelineContext> } {
  if (decisions.length === 0) return { records: [], context: {} };
  const noted = decisions.filter((d) => d.task_id === undefined && d.why.startsWith('has no agent')).map((d) => d.role);
  const { iteration, loop } = context;
  return {
    records: [{ event: 'routing_decided', stage, iteration, loop, decisions }],
    context: {
      decisions: [...context.decisions, ...decisions.map((d) => ({ stage, iteration, loop, text: describeDecision(d) }))],
      ...(noted.length > 0 && { noted: [...context.noted, ...noted] }),
    },
  };
}

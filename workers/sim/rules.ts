// Picks the behaviour of one attempt: global defaults, then the stage's defaults, then the first matching rule.
import type { Stage } from '../types.js';
import type { Behaviour, Rule, Scenario } from './scenario.js';
import type { TaskIdParts } from './task-id.js';

export interface AttemptFacts {
  stage: Stage;
  task: TaskIdParts;
  attempt: number;
}

// The merged behaviour for an attempt; later layers override earlier ones field by field.
export function resolveBehaviour(scenario: Scenario, facts: AttemptFacts): Behaviour {
  const rule = scenario.rules.find((candidate) => matchesRule(candidate, facts));
  return { ...scenario.defaults, ...scenario.stages[facts.stage], ...rule?.do };
}

// True when every field the rule names agrees with the attempt; `task` matches the full or the unprefixed id.
export function matchesRule(rule: Rule, facts: AttemptFacts): boolean {
  const { stage, task, attempt, iteration } = rule.match;
  if (stage !== undefined && stage !== facts.stage) return false;
  if (attempt !== undefined && attempt !== facts.attempt) return false;
  if (iteration !== undefined && iteration !== facts.task.iteration) return false;
  if (task === undefined) return true;
  const pattern = toGlobRegExp(task);
  return pattern.test(facts.task.id) || pattern.test(facts.task.base);
}

// `*` stands for any run of characters; everything else is literal.
function toGlobRegExp(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`);
}

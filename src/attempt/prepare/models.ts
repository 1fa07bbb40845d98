// Model tiers by cost mode: the model each role runs on, per agent CLI, chosen once at a run's start
// and recorded in run_started. Verify's roles never go below the middle tier.
import type { TeamConfig } from '../../../config/schema.js';
import { agentOf, ROLE_FALLBACK } from '../../../machines/routing.js';
import type { CostMode } from '../../log/schema.js';
import type { Routing } from './agents.js';
import { resolveAgent } from './agents.js';

type Tier = 0 | 1 | 2;


// Each role's tier by cost mode; a role not listed takes `other`. Planning and judging keep a stronger
// model than doing: a cheap executor is checked by a verifier that is not cheap.
const ROLE_TIERS: Record<CostMode, { roles: Record<string, Tier>; other: Tier }> = {
  economy: { roles: { planner: 1, architect: 1, debugger: 1 }, other: 0 },
  balanced: { roles: { planner: 2, architect: 2 }, other: 1 },
  quality: { roles: {}, other: 2 },
};

// Roles of team-verify: never below the middle tier.
const VERIFY_ROLES = new Set(['verifier', 'security-reviewer', 'code-reviewer']);

// The tier a role gets in a cost mode.
export function tierOf(mode: CostMode, role: string): Tier {
  const table = ROLE_TIERS[mode];
  const tier = table.roles[role] ?? table.other;
  return VERIFY_ROLES.has(role) ? (Math.max(tier, 1) as Tier) : tier;
}

// role → model for every role whose agent has a tier table and no model of its own (pinned models win).
export function chooseModels(config: TeamConfig, routing: Routing, mode: CostMode): Record<string, string> {
  const roles = new Set([...Object.keys(routing.agents), ...Object.keys(ROLE_FALLBACK), routing.agentType]);
  const models: Record<string, string> = {};
  for (const role of [...roles].sort()) {
    const name = agentOf(routing, role);
    const { adapter, agent } = resolveAgent(config, name);
    if (agent.model !== undefined) continue;
    const tiers = config.models[name] ?? config.models[agent.adapter] ?? adapter.facts?.tiers;
    // Tiers (cheapest, middle, strongest): the config's, else the CLI's catalogue record's.
    if (tiers) models[role] = tiers[tierOf(mode, role)];
  }
  return models;
}

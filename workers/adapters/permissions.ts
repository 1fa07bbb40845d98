// Which permission level each stage gets unless an agent's `permissions` says otherwise.
import type { AgentConfig, PermissionLevel, Stage } from '../types.js';

// Exec, verify and fix must run programs (build, test, the verify prompt's checks); plan, prd
// and review only read the project and answer (their result may come as a fenced json block).
export const DEFAULT_PERMISSIONS: Record<Stage, PermissionLevel> = {
  'team-plan': 'read',
  'team-prd': 'read',
  'team-exec': 'run',
  'team-verify': 'run',
  'team-fix': 'run',
  'ralph-review': 'read',
};

// The level of one stage for one agent.
export function permissionFor(agent: AgentConfig, stage: Stage): PermissionLevel {
  return agent.permissions?.[stage] ?? DEFAULT_PERMISSIONS[stage];
}

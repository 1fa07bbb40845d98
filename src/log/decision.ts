// A routing decision (routing_decided) in the words the handoffs, status and report show.
import type { RoutingDecision } from './schema.js';

// "security-reviewer added: src/auth/ changed", "fix-1-gate-1: debugger takes it: a failing gate (gate-1)".
export function describeDecision(d: RoutingDecision): string {
  return `${d.task_id ? `${d.task_id}: ` : ''}${d.role} ${d.why}`;
}

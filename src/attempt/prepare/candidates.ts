// The best of N (issue 38): what the selector's prompt says of each candidate — its agent, how it
// ended, its gates, the size of its change and its own summary — and the check of the pick it makes.
import type { TaskView } from '../../log/fold/types.js';
import type { TeamEvent } from '../../log/schema.js';
import { git } from '../../git/git.js';

export interface CandidateFact {
  id: string;
  agent: string;
  /** How its last attempt ended. */
  status: string;
  evidence: string;
  artifacts: string[];
  /** Its gates (verify.commands in its own worktree); absent when none ran. */
  gates?: Array<{ command: string; exitCode: number | null; timedOut: boolean }>;
  /** Its branch, where its work is. */
  branch: string;
  /** `git diff --shortstat` of its branch against the integration branch; absent when it could not be read. */
  diff?: string;
}

// The facts the fold holds of each candidate.
export function candidateFacts(tasks: ReadonlyMap<string, TaskView>, ids: readonly string[], branchOf: (id: string) => string): CandidateFact[] {
  return ids.map((id) => {
    const task = tasks.get(id);
    const last = task?.attempts.at(-1);
    return {
      id,
      agent: last?.agent ?? '(never started)',
      status: last?.status ?? 'pending',
      evidence: last?.evidence ?? '',
      artifacts: last?.artifacts ?? [],
      ...(task?.gates && { gates: task.gates }),
      branch: branchOf(id),
    };
  });
}

// The facts with what `pending` adds to them: the events of a step not yet in the fold (a selector's
// job is made in the step that commits its task_started, which may also hold the last candidate's
// gates and end).
export function withPendingFacts(facts: CandidateFact[], pending: readonly TeamEvent[]): CandidateFact[] {
  return facts.map((fact) => {
    let next = fact;
    for (const event of pending) {
      if (event.event === 'candidate_gated' && event.task_id === fact.id) next = { ...next, gates: event.gates.map((g) => ({ command: g.command, exitCode: g.exitCode, timedOut: g.timedOut })) };
      if (event.event === 'task_finished' && event.task_id === fact.id) next = { ...next, agent: event.agent, status: event.status, evidence: event.evidence, artifacts: event.artifacts };
    }
    return next;
  });
}

// The same with each candidate's change counted by git (its branch since it left `base`).
export async function withDiffStats(facts: CandidateFact[], repoDir: string, base: string): Promise<CandidateFact[]> {
  return Promise.all(
    facts.map(async (fact) => {
      const stat = await git(repoDir, ['diff', '--shortstat', `${base}...${fact.branch}`]);
      return stat.ok ? { ...fact, diff: stat.stdout.trim() || 'no change' } : fact;
    }),
  );
}

// Whether the candidate's gates all passed: true, false, or undefined when none ran.
export function gatesPassed(fact: Pick<CandidateFact, 'gates'>): boolean | undefined {
  if (!fact.gates || fact.gates.length === 0) return undefined;
  return fact.gates.every((g) => g.exitCode === 0 && !g.timedOut);
}

// One line a candidate, in a form the selector (and the sim agent) read:
// `- t1--c2 (codex): completed; gates passed (2 of 2); 1 file changed, 3 insertions(+); branch team/…; summary: …`
export function describeCandidates(facts: CandidateFact[]): string {
  return facts
    .map((fact) => {
      const passed = gatesPassed(fact);
      const failing = (fact.gates ?? []).filter((g) => g.exitCode !== 0 || g.timedOut).map((g) => `\`${g.command}\` ${g.timedOut ? 'timed out' : `exited ${g.exitCode}`}`);
      const gates = passed === undefined ? 'gates not run' : passed ? `gates passed (${fact.gates!.length} of ${fact.gates!.length})` : `gates failed: ${failing.join(', ')}`;
      const summary = fact.evidence.replace(/\s+/g, ' ').slice(0, 400);
      return `- ${fact.id} (${fact.agent}): ${fact.status}; ${fact.status === 'completed' ? gates : 'not a choice'}; ${fact.diff ?? 'change not measured'}; branch ${fact.branch}; summary: ${summary || '(none)'}`;
    })
    .join('\n');
}

// The candidate a selector's `pick` names (its id, `c<k>` or `<k>`), or why it cannot be merged:
// not one of the candidates, not completed, or failing its gates while another passed them.
export function judgePick(facts: CandidateFact[], taskId: string, pick: string): { id: string } | { problem: string } {
  const short = /^c?(\d+)$/.exec(pick.trim());
  const id = short ? `${taskId}--c${short[1]}` : pick.trim();
  const fact = facts.find((f) => f.id === id);
  if (!fact) return { problem: `"${pick.slice(0, 80)}" is not one of the candidates (${facts.map((f) => f.id).join(', ')})` };
  if (fact.status !== 'completed') return { problem: `${id} did not complete (${fact.status}): only a completed candidate can be merged` };
  const passing = facts.filter((f) => f.status === 'completed' && gatesPassed(f) === true).map((f) => f.id);
  if (gatesPassed(fact) === false && passing.length > 0) return { problem: `${id} failed its gates while ${passing.join(', ')} passed them` };
  return { id };
}

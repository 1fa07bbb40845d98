// What the team-verify and ralph-review handoffs say: verdicts, gates, defects, reasons.
import type { GateResult, PipelineContext } from '../machines/types.js';
import { describeArtifacts, describeFailed, describeNext, listTasks, summarizeFiles } from './facts.js';
import type { Detail, Section, Sections } from './layout.js';
import { countOf, listOf, toEvidence } from './text.js';

// The team-verify handoff: the verdict, each gate's exit code, the defects and the way on.
export function makeVerifySections(context: PipelineContext, next: string): Sections {
  const gates = context.gateResults;
  const passed = gates.filter(isGatePassed).length;
  const gatePart = gates.length === 0 ? 'no gate commands configured' : `${passed} of ${countOf(gates.length, 'gate')} exited 0`;
  const verifier = context.stageAttempt ? [{ text: `verifier: ${toEvidence(context.stageAttempt.evidence)}` }] : [];
  const defects = context.defects;
  return {
    Decided: { headline: `verdict ${context.verdict ?? 'fail'}${defects.length ? `, ${countOf(defects.length, 'defect')}` : ''} (${gatePart})`, details: [...verifier, ...gates.filter((g) => !isGatePassed(g)).map(describeGate), ...gates.filter(isGatePassed).map(describeGate)] },
    Rejected: {
      headline: defects.length === 0 ? 'no defects found' : `${countOf(defects.length, 'defect')} found`,
      details: defects.map((d) => ({ text: `${d.id}${d.task ? ` (task ${d.task})` : ''}: ${toEvidence(d.description)}`, key: d.id })),
    },
    Risks: describeIterationRisks(context, gates.filter((g) => g.timedOut).map((g) => ({ text: `\`${toEvidence(g.command)}\` timed out: a slow or hung check` }))),
    Files: describeIterationFiles(context),
    Remaining: { headline: describeNext(context, next), details: describeDefectsAhead(context, next) },
  };
}

// The ralph-review handoff: approve or reject, the architect's reasons, the iteration count.
export function makeReviewSections(context: PipelineContext, next: string): Sections {
  const reasons = context.reviewReasons;
  const approved = reasons.length === 0;
  const { iteration, limits } = context;
  const architect = context.stageAttempt ? [{ text: `architect: ${toEvidence(context.stageAttempt.evidence)}` }] : [];
  const gates = context.gateResults.filter(isGatePassed).map((g) => ({ text: `gate \`${toEvidence(g.command)}\` exited 0` }));
  return {
    Decided: { headline: `verdict ${approved ? 'approve' : 'reject'} in iteration ${iteration} of ${limits.maxIterations}`, details: [...architect, ...gates] },
    Rejected: {
      headline: approved ? 'no reason against the work: approved' : `${countOf(reasons.length, 'reason')} to reject, now defects for the fix loop`,
      details: reasons.map((reason, i) => ({ text: `review-${i + 1}: ${toEvidence(reason)}`, key: `review-${i + 1}` })),
    },
    Risks: describeIterationRisks(context, []),
    Files: describeIterationFiles(context),
    Remaining: { headline: describeNext(context, next), details: describeDefectsAhead(context, next) },
  };
}

// The defects the next fix loop or iteration starts from.
function describeDefectsAhead(context: PipelineContext, next: string): Detail[] {
  if (context.defects.length === 0 || next.startsWith('end')) return [];
  return [{ text: `defects to fix: ${listOf(context.defects.map((d) => d.id))}` }];
}

function isGatePassed(gate: GateResult): boolean {
  return gate.exitCode === 0 && !gate.timedOut;
}

function describeGate(gate: GateResult): Detail {
  const exit = gate.timedOut ? 'timed out' : `exit ${gate.exitCode ?? 'none'}`;
  return { text: `\`${toEvidence(gate.command)}\` → ${exit} (${(gate.durationMs / 1000).toFixed(1)} s)`, key: gate.command };
}

// Tasks of the iteration that ended failed, and how much of the fix and iteration budget is spent.
function describeIterationRisks(context: PipelineContext, extra: Detail[]): Section {
  const failed = listTasks(context).filter((t) => t.status === 'failed');
  const { loop, iteration, limits } = context;
  const budget = `fix loops ${loop} of ${limits.maxFixLoops} spent${context.mode === 'ralph' ? `, iteration ${iteration} of ${limits.maxIterations}` : ''}`;
  return {
    headline: `${failed.length === 0 ? 'no task' : countOf(failed.length, 'task')} ended failed; ${budget}`,
    details: [...failed.map((t) => describeFailed(t, context)), ...extra],
  };
}

function describeIterationFiles(context: PipelineContext): Section {
  const artifacts = describeArtifacts(listTasks(context));
  return { headline: summarizeFiles(artifacts.length, context, 'of this iteration under check'), details: artifacts };
}

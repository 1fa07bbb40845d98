// Renders a stage handoff (SPEC section 3) from what the pipeline recorded: no clock, no randomness,
// so a handoff rewritten after a crash comes out byte-identical.
import type { HandoffInput, Stage } from '../machines/types.js';
import { makeCancelSections, makeFailingSections } from './end-sections.js';
import { makeExecSections, makeFixSections } from './exec-sections.js';
import { listRunFacts } from './facts.js';
import { layoutHandoff, type Sections } from './layout.js';
import { makePlanSections, makePrdSections } from './plan-sections.js';
import { makeReviewSections, makeVerifySections } from './verify-sections.js';

// The title target of a cancelled run's handoff.
const CANCELLED = 'end (cancelled)';

// The handoff text: a `## Handoff: <from> → <to>` line, then Decided, Rejected, Risks, Files, Remaining.
export function renderHandoff(input: HandoffInput): string {
  const from = toFromStage(input);
  const to = input.stage === 'team-cancel' && !input.next.includes('cancel') ? CANCELLED : input.next;
  return layoutHandoff(`## Handoff: ${from} → ${to}`, withDecisions(input, makeSections(input, from)), listRunFacts(input.context));
}

// The stage's routing decisions ("security-reviewer added: src/auth/ changed") lead its Decided details.
function withDecisions(input: HandoffInput, sections: Sections): Sections {
  const { context } = input;
  const decided = context.decisions.filter((d) => d.stage === input.stage && d.iteration === context.iteration && d.loop === context.loop);
  const found = input.stage === 'team-plan' ? context.findings : null;
  const objections = input.stage === 'team-prd' ? context.objections : [];
  const architect = input.stage === 'team-plan' ? context.architectNotes : { notes: [], risks: [] };
  if (decided.length === 0 && !found && objections.length === 0 && architect.notes.length + architect.risks.length === 0) return sections;
  const details = [...decided.map((d) => ({ text: `routing: ${d.text}` })), ...architect.notes.map((text) => ({ text: `architect: ${text}` }))];
  if (found) details.push({ text: `explore: build and test ${found.commands.join('; ') || 'not found'}; ${found.conventions.join('; ') || 'no conventions named'}` });
  const files = found ? [{ text: `explore: ${found.files.join(', ') || 'no files named'}` }] : [];
  const risks = [...objections.map((text) => ({ text: `critic: ${text}` })), ...architect.risks.map((text) => ({ text: `architect: ${text}` }))];
  return {
    ...sections,
    Decided: { ...sections.Decided, details: [...details, ...sections.Decided.details] },
    Risks: { ...sections.Risks, details: [...risks, ...sections.Risks.details] },
    Files: { ...sections.Files, details: [...files, ...sections.Files.details] },
  };
}

// The stage a handoff leaves: for a cancel, the stage that was cancelled.
export function toFromStage(input: HandoffInput): Stage {
  return input.stage === 'team-cancel' ? (input.context.endingStage ?? input.context.stage) : input.stage;
}

// True for the handoff of a stage whose agent failed every attempt (the run ends there).
export function isStageFailure(input: HandoffInput): boolean {
  const attempt = input.context.stageAttempt;
  return input.next === 'end (failed)' && attempt !== null && attempt.stage === input.stage && attempt.status === 'failed';
}

function makeSections(input: HandoffInput, from: Stage): Sections {
  const { context, next } = input;
  if (input.stage === 'team-cancel') return makeCancelSections(context, from);
  if (isStageFailure(input)) return makeFailingSections(context, from);
  switch (input.stage) {
    case 'team-plan':
      return makePlanSections(context, next);
    case 'team-prd':
      return makePrdSections(context);
    case 'team-exec':
      return makeExecSections(context);
    case 'team-verify':
      return makeVerifySections(context, next);
    case 'team-fix':
      return makeFixSections(context);
    case 'ralph-review':
      return makeReviewSections(context, next);
  }
}

// The kinds of request the run's writer takes from its inbox (take.ts), each with its body's schema.
import { z } from 'zod';
import { lowBudgetProblem, spendOf } from '../log/fold/spend.js';
import { budgetRaised } from '../session/budget.js';
import { recipientProblem } from './recipient.js';
import type { InboxHandler } from './take.js';
import { teamTextProblem } from './text.js';
import { TOOL_CALL } from './tool-call.js';

// `team say`: a message from the person to a worker or a task, and a message relayed from a worker's
// tool call on another machine (team worker) is the same record.
const messageBody = z.strictObject({
  from: z.string().min(1).max(128),
  to: z.string().min(1).max(128),
  text: z.string(),
  question: z.boolean().optional(),
  task_id: z.string().optional(),
  attempt: z.number().int().positive().optional(),
});

export const MESSAGE: InboxHandler<z.infer<typeof messageBody>> = {
  body: messageBody,
  toEvent(body, request, session) {
    const problem = teamTextProblem(body.text, 'the message') ?? recipientProblem(session.events.fold.state, body.to);
    if (problem) return { refused: problem };
    return { event: 'team_message', key: request.key, from: body.from, to: body.to, text: body.text, ...(body.question && { question: true }), ...(body.task_id !== undefined && { task_id: body.task_id }), ...(body.attempt !== undefined && { attempt: body.attempt }) };
  },
};

// `team scale N` (issue 30): the run's workers become N, within team.maxAgents.
const scaleBody = z.strictObject({ workers: z.number().int().min(1).max(20), by: z.string().min(1).max(128) });

export const SCALE: InboxHandler<z.infer<typeof scaleBody>> = {
  body: scaleBody,
  toEvent(body, request, session) {
    const max = session.config.team.maxAgents;
    if (body.workers > max) return { refused: `${body.workers} workers is over team.maxAgents (${max})` };
    return { event: 'team_scaled', key: request.key, workers: body.workers, by: body.by };
  },
};

// `team resume --budget-usd X / --budget-tokens N` on a live run (issue 29): the writer records the
// raise as budget_raised, and the run goes on under the new budget.
const budgetBody = z.strictObject({ usd: z.number().positive().optional(), tokens: z.number().int().positive().optional() }).refine((b) => b.usd !== undefined || b.tokens !== undefined, 'a budget in dollars (usd) or tokens');

export const BUDGET: InboxHandler<z.infer<typeof budgetBody>> = {
  body: budgetBody,
  toEvent(body, request, session) {
    const problem = lowBudgetProblem(body, spendOf(session.events.fold.state));
    if (problem) return { refused: problem };
    budgetRaised(session.events);
    return { event: 'budget_raised', key: request.key, ...(body.usd !== undefined && { usd: body.usd }), ...(body.tokens !== undefined && { tokens: body.tokens }) };
  },
};

// Every kind, by name.
export const INBOX_KINDS: Record<string, InboxHandler<never>> = {
  message: MESSAGE as InboxHandler<never>,
  scale: SCALE as InboxHandler<never>,
  budget: BUDGET as InboxHandler<never>,
  tool_call: TOOL_CALL as InboxHandler<never>,
};

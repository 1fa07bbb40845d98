// The sim agent's scenario format (see SCENARIO.md) and its loader, with errors naming file and field.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { STAGES } from '../types.js';
import { DEMO_SCENARIO } from './demo-scenario.js';

const PlanTaskSchema = z.strictObject({
  id: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  role: z.string().optional(),
  agent: z.string().optional(),
  blockedBy: z.array(z.string()).optional(),
  acceptance: z.array(z.string()).optional(),
  files: z.array(z.string()).optional(),
  bestOf: z.int().optional(),
  agents: z.array(z.string()).optional(),
});

// Cycles and unknown blockedBy are allowed on purpose: the sim must be able to plan badly.
const PlanSchema = z
  .strictObject({
    tasks: z.array(PlanTaskSchema).optional(),
    count: z.int().min(0).optional(),
    needsPrd: z.boolean().optional(),
    architectural: z.boolean().optional(),
    needsArchitect: z.boolean().optional(),
  })
  .refine((plan) => !(plan.tasks && plan.count !== undefined), { message: 'give either tasks or count, not both' });

const DefectSchema = z.strictObject({ id: z.string().min(1), description: z.string(), task: z.string().optional() });

const FileSchema = z.strictObject({ path: z.string().min(1), content: z.string().optional() });

const EditSchema = z.strictObject({ path: z.string().min(1), line: z.int().min(1), text: z.string() });
// A symbolic link to make in the project, as a hostile agent would (`ln -s target path`).
const LinkSchema = z.strictObject({ path: z.string().min(1), target: z.string().min(1) });

const CommitSchema = z.strictObject({ message: z.string().min(1).optional(), force: z.array(z.string().min(1)).optional() });

// A call of a team tool (workers/sim/tools.ts): made `repeat` times `everyMs` apart; with `until`, made
// again until an answer (to it or an earlier call) carried unread messages or a shutdown request (at most `maxMs`).
const ToolStepSchema = z.strictObject({
  call: z.string().min(1),
  args: z.record(z.string(), z.unknown()).optional(),
  repeat: z.int().min(1).max(1000).optional(),
  everyMs: z.int().min(0).optional(),
  until: z.enum(['unread', 'shutdown']).optional(),
  maxMs: z.int().min(1).optional(),
  /** Print nothing of the answers: no output that the watchdog would take as a sign of life. */
  quiet: z.boolean().optional(),
});

// What one attempt does; every field is optional (see SCENARIO.md).
const BehaviourSchema = z.strictObject({
  /** Wait this long before doing the work. */
  sleepMs: z.int().min(0).optional(),
  /** Write a `failed` result; a string is its summary. */
  fail: z.union([z.boolean(), z.string()]).optional(),
  /** Exit with this code and write no result. */
  exitCode: z.int().min(1).max(255).optional(),
  /** Hand over text that is not JSON, or JSON with only `status`. */
  malformed: z.enum(['not-json', 'missing-fields']).optional(),
  /** Never finish: sleep until killed. */
  hang: z.boolean().optional(),
  /** Install SIGTERM and SIGINT handlers that do nothing. */
  ignoreSignals: z.boolean().optional(),
  /** Child processes that sleep, in the sim's process group. */
  children: z.int().min(0).max(50).optional(),
  childSleepMs: z.int().min(0).optional(),
  /** Numbered lines printed on stdout before the result. */
  printLines: z.int().min(0).optional(),
  /** `stdout`: print the result as a fenced json block instead of writing the result file. */
  resultVia: z.enum(['file', 'stdout']).optional(),
  /** Rewrite the heartbeat file this often (default file: `heartbeat` beside the result file). */
  heartbeatMs: z.int().min(1).optional(),
  heartbeatFile: z.string().min(1).optional(),
  /** Files to write in the project, replacing exec/fix's default `sim-output/<task>.txt`. */
  files: z.array(FileSchema).optional(),
  /** Lines of existing files to replace (after `files`). */
  edits: z.array(EditSchema).optional(),
  /** Symbolic links to make in the project (after `edits`), listed in `artifacts`. */
  links: z.array(LinkSchema).optional(),
  /** Commit the work itself with git, as some agents do (`force`: paths added even when ignored). */
  commit: CommitSchema.optional(),
  /** A shell command run in the project after the files, edits and commit, as an agent that runs commands does. */
  shell: z.string().min(1).optional(),
  /** Extra artifact paths listed in the result but not written. */
  artifacts: z.array(z.string()).optional(),
  /** The plan this planner attempt returns instead of the scenario's. */
  plan: PlanSchema.optional(),
  /** What the attempt reports it spent (printed as a `sim: usage {...}` line the sim adapter reads), so a budget can be tried. */
  usage: z.strictObject({ costUsd: z.number().min(0).optional(), tokens: z.strictObject({ input: z.int().min(0), output: z.int().min(0) }).optional() }).optional(),
  /** Print the usage line before the sleep too, as a CLI that streams its spend does: the runtime reads it while the attempt runs. */
  usageEarly: z.boolean().optional(),
  /** The selector's pick (best of N), instead of the first candidate whose gates passed. */
  pick: z.string().min(1).optional(),
  /** Team tool calls made through `team mcp`, before the sleep; a team_done or team_fail ends the attempt there. */
  tools: z.array(ToolStepSchema).optional(),
});

const RuleSchema = z.strictObject({
  match: z
    .strictObject({
      stage: z.enum(STAGES).optional(),
      task: z.string().min(1).optional(),
      attempt: z.int().min(1).optional(),
      iteration: z.int().min(1).optional(),
    })
    .default({}),
  do: BehaviourSchema,
});

const CountOrAlways = z.union([z.int().min(0), z.literal('always')]);

export const ScenarioSchema = z.strictObject({
  name: z.string().optional(),
  plan: PlanSchema.default({ count: 1 }),
  verify: z
    .strictObject({
      failPasses: CountOrAlways.default(0),
      defects: z.array(DefectSchema).min(1).optional(),
      /** Per reviewer role (security-reviewer, code-reviewer): its own failing passes and defects; default: it passes. */
      reviewers: z.record(z.string(), z.strictObject({ failPasses: CountOrAlways.default(0), defects: z.array(DefectSchema).min(1).optional() })).optional(),
    })
    .default({ failPasses: 0 }),
  /** What the plan's architect says (stage routing's routing.architect). */
  architect: z.strictObject({ notes: z.array(z.string()).default([]), risks: z.array(z.string()).default([]) }).optional(),
  /** What the critic of team-prd says (stage routing's routing.critic). */
  critic: z.strictObject({ objections: z.array(z.string()).default([]), acceptance: z.record(z.string(), z.array(z.string())).default({}) }).optional(),
  /** What the explore agent reports (stage routing's routing.explore). */
  explore: z.strictObject({ files: z.array(z.string()).default([]), commands: z.array(z.string()).default([]), conventions: z.array(z.string()).default([]) }).optional(),
  review: z
    .strictObject({ rejectFirst: CountOrAlways.default(0), reasons: z.array(z.string()).optional() })
    .default({ rejectFirst: 0 }),
  defaults: BehaviourSchema.default({}),
  stages: z.partialRecord(z.enum(STAGES), BehaviourSchema).default({}),
  rules: z.array(RuleSchema).default([]),
});

export type Scenario = z.infer<typeof ScenarioSchema>;
export type Behaviour = z.infer<typeof BehaviourSchema>;
export type ScenarioPlan = z.infer<typeof PlanSchema>;
export type PlanTask = z.infer<typeof PlanTaskSchema>;
export type Defect = z.infer<typeof DefectSchema>;
export type Rule = z.infer<typeof RuleSchema>;
export type ToolStep = z.infer<typeof ToolStepSchema>;

// A scenario file that cannot be used; the message names the file and the field.
export class ScenarioError extends Error {
  override name = 'ScenarioError';
}

// Validates a parsed scenario; `source` names where it came from in the error.
export function parseScenario(data: unknown, source: string): Scenario {
  const parsed = ScenarioSchema.safeParse(data);
  if (!parsed.success) throw new ScenarioError(`sim scenario ${source} is invalid:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

// Reads the scenario at `path`, or the built-in demo scenario when no path is given.
export function loadScenario(path: string | undefined): Scenario {
  if (path === undefined || path === '') return parseScenario(DEMO_SCENARIO, '(built-in demo)');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(`sim scenario ${path} cannot be read: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(`sim scenario ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseScenario(data, path);
}

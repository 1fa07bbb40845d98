// Builds each attempt's prompt from a template file (config/prompts/<stage>.md, or the user's own).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROLE_TEMPLATES, type TeamConfig } from '../../../config/schema.js';
import type { AttemptInput } from '../../../machines/types.js';
import { UsageError } from '../../sys/errors.js';
import type { TeamMessage } from '../../log/fold/team.js';
import { earlierSection, type EarlierAttempt } from './earlier.js';
import { describeCandidates, type CandidateFact } from './candidates.js';

// The result each stage asks for, shown in its prompt.
const RESULT_SHAPES: Record<string, string> = {
  'team-plan': '"tasks": [{"id": "t1", "title": "...", "description": "...", "blockedBy": [], "acceptance": ["..."]}], "needsPrd": false',
  'team-prd': '"acceptance": {"<task id>": ["criterion", "..."]}',
  'team-verify': '"verdict": "pass" | "fail", "defects": [{"id": "d1", "description": "...", "task": "t1"}]',
  'ralph-review': '"verdict": "approve" | "reject", "reasons": ["..."]',
  'plan-architect': '"notes": ["a decision about the system\'s boundaries"], "risks": ["..."]',
  critic: '"objections": ["what the scope misses or gets wrong"], "acceptance": {"<task id>": ["a criterion to add"]}',
  selector: '"pick": "<the candidate\'s id>", "reasons": ["why this one", "why not each other"]',
  explore: '"findings": {"files": ["paths that matter to the task"], "commands": ["the build and test commands"], "conventions": ["..."]}',
};

export interface PromptContext {
  input: AttemptInput;
  config: TeamConfig;
  configFile?: string;
  projectDir: string;
  resultFile: string;
  handoffTexts: string[];
  workers: number;
  /** Messages to the task (from teammates and the person): the log's, when the prompt is written. */
  messages?: TeamMessage[];
  /** The worker has the team tools: the prompt tells it how a teammate uses them. */
  teamTools?: boolean;
  /** A retry: how the attempt before it ended and what it left in the folder. */
  earlier?: EarlierAttempt;
  /** The selector's (best of N): its candidates, and the integration branch their work left. */
  candidates?: { facts: CandidateFact[]; workBranch: string };
}

// The prompt text for one attempt.
export function buildPrompt(ctx: PromptContext): string {
  const { input } = ctx;
  const values: Record<string, string> = {
    role: input.role,
    worker: input.worker,
    workers: String(ctx.workers),
    runTask: input.runTask,
    maxTasks: String(ctx.config.team.maxTasks),
    maxFixLoops: String(ctx.config.team.maxFixLoops),
    maxIterations: String(ctx.config.ralph.maxIterations),
    iteration: String(input.iteration),
    loop: String(input.loop),
    taskId: input.taskId,
    taskTitle: input.def?.title ?? '',
    taskDescription: input.def?.description ?? '',
    acceptance: list(input.def?.acceptance ?? [], 'none given: use your judgement and say what you checked'),
    // Other tasks may own other files: a change outside these is recorded at the merge (files_strayed).
    files: input.def?.files?.length ? `${list(input.def.files, '')}\n\nOther tasks may own the other files: change one only when the task cannot be done without it, and say so.` : '- none named: change what the task needs',
    dependencies: list(input.dependencies.map((d) => `${d.id} (${d.title}): ${d.evidence}${d.artifacts.length ? ` — files: ${d.artifacts.join(', ')}` : ''}`), 'none'),
    defects: list(input.defects.map((d) => `${d.id}: ${d.description}${d.task ? ` (task ${d.task})` : ''}`), 'none'),
    tasks: list(input.tasks.map((t) => `${t.id}: ${t.title}${t.blockedBy?.length ? ` (after ${t.blockedBy.join(', ')})` : ''}${t.files?.length ? ` — files: ${t.files.join(', ')}` : ''}${t.acceptance?.length ? ` — acceptance: ${t.acceptance.join('; ')}` : ''}`), 'none'),
    handoffs: ctx.handoffTexts.length ? `## Handoffs so far\n\n${ctx.handoffTexts.join('\n\n')}` : '## Handoffs so far\n\nnone: this is the first stage.',
    projectDir: ctx.projectDir,
    findings: input.findings ? describeFindings(input.findings) : '- none: no explore agent ran before this plan',
    result: resultSection(templateOf(input)),
    attempt: attemptSection(input, ctx.projectDir, ctx.resultFile),
    candidates: ctx.candidates ? describeCandidates(ctx.candidates.facts) : '- none',
    workBranch: ctx.candidates?.workBranch ?? 'HEAD',
  };
  const fill = (template: string) => template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
  // The tools' rules come just before the result they report.
  if (ctx.teamTools) values.result = `${fill(readBuiltIn(WORKER_TOOLS))}${values.result}`;
  const template = readTemplate(ctx.config, ctx.configFile, templateOf(input));
  const text = fill(template);
  // What differs per attempt comes last, after what all attempts of the stage share (a provider
  // caches a prompt's repeated prefix): the attempt's own section (at the end of a template that asks
  // for a result and has no place for it), then its messages and what the attempt before it left.
  const tail = [...(template.includes('{{result}}') && !template.includes('{{attempt}}') ? [values.attempt!] : []), ...(ctx.messages?.length ? [messagesSection(ctx.messages)] : []), ...(ctx.earlier ? [earlierSection(ctx.earlier)] : [])];
  return tail.length ? `${text.trimEnd()}\n\n${tail.join('\n\n')}\n` : text;
}

// Who does this attempt, where, and where its result goes: the prompt's last fixed section.
function attemptSection(input: AttemptInput, projectDir: string, resultFile: string): string {
  return [
    '## This attempt',
    '',
    `You are ${input.worker}, the ${input.role}, on ${input.taskId}. Work in the project folder (${projectDir}).`,
    `Write your result's JSON to the file named by $TEAM_RESULT_FILE (${resultFile}); if you cannot write`,
    'files, print it as the last fenced ```json block of your answer.',
  ].join('\n');
}

// The messages to the task, after the template (whatever template the user has).
function messagesSection(messages: TeamMessage[]): string {
  const from = (m: TeamMessage) => (m.from === 'human' ? 'the person running the team' : `${m.from}${m.task !== undefined ? ` (task ${m.task})` : ''}`);
  return ['## Messages from teammates', '', ...messages.map((m) => `- from ${from(m)}${m.question ? ', a question' : ''}: ${m.text.replace(/\s+/g, ' ')}`)].join('\n');
}

// The worker's rules when it has the team tools (config/prompts/worker-tools.md).
const WORKER_TOOLS = 'worker-tools';

// The result's shape, the same for every attempt of the stage (where to write it: attemptSection).
function resultSection(stage: string): string {
  const extra = RESULT_SHAPES[stage];
  return [
    '## Your result',
    '',
    'When you are done, write this JSON where the end of this prompt says:',
    '',
    '```json',
    `{"status": "completed" | "failed", "summary": "...", "artifacts": ["paths you changed"], "evidence": "how you know", "next": "what should follow"${extra ? `, ${extra}` : ''}}`,
    '```',
  ].join('\n');
}

const ROLE_TEMPLATE_SET: ReadonlySet<string> = new Set(ROLE_TEMPLATES);

// The template (and result shape) of an attempt: its routed role's, the plan's architect's, or its stage's.
function templateOf(input: AttemptInput): string {
  if (input.candidates !== undefined) return 'selector';
  if (input.stage === 'team-plan' && input.role === 'architect') return 'plan-architect';
  return ROLE_TEMPLATE_SET.has(input.role) ? input.role : input.stage;
}

// The template: the user's override of it by its own name (`prompts.debugger`, `prompts.team-fix`), else the built-in one.
function readTemplate(config: TeamConfig, configFile: string | undefined, template: string): string {
  const override = config.prompts[template as keyof TeamConfig['prompts']];
  if (override) {
    const path = resolve(configFile ? dirname(configFile) : process.cwd(), override);
    if (!existsSync(path)) throw new UsageError(`config: prompts.${template} names ${path}, which does not exist`);
    return readFileSync(path, 'utf8');
  }
  return readBuiltIn(template);
}

function readBuiltIn(name: string): string {
  return readFileSync(join(packageRoot(), 'config', 'prompts', `${name}.md`), 'utf8');
}

// The explore agent's findings as the planner reads them.
function describeFindings(findings: NonNullable<AttemptInput['findings']>): string {
  return [
    `- files: ${findings.files.join(', ') || 'none named'}`,
    `- build and test: ${findings.commands.join('; ') || 'none named'}`,
    `- conventions: ${findings.conventions.join('; ') || 'none named'}`,
  ].join('\n');
}

function list(items: string[], empty: string): string {
  return items.length ? items.map((item) => `- ${item.replace(/\s+/g, ' ')}`).join('\n') : `- ${empty}`;
}

let root: string | undefined;
// The package's root folder, from src/ or dist/src/ alike.
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'config', 'prompts'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('teamline: cannot find the package root (config/prompts)');
    dir = parent;
  }
  return (root = dir);
}
